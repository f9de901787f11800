// Keeping the part of a report the user asked for: one progress point, one load level, ranked.
#pragma once

#include <string>

#include "analysis/causal_profile.h"

namespace coz::analysis {

// Keeps the series and scalability rows of `point` and `load` (either empty: all), ranked by
// `order` within each (point, level) group. `load` is a level's label ("2x", "+750us/arrival")
// or its plain factor ("2"). False with a one-line `error` naming what the profile has when
// either is not in it.
bool select_series(Report* report, const std::string& point, const std::string& load,
                   SortOrder order, std::string* error);

}  // namespace coz::analysis
