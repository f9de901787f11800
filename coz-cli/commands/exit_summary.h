// The short summary `coz run` prints at exit.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/causal_profile.h"

namespace coz::cli {

// Two lines for the end of `coz run`: the experiments this coz wrote (`this_run`) and in all,
// the lines with usable data in the whole profile (`report`), and what to do when there are none.
std::string exit_summary(const std::string& profile, const analysis::Report& report,
                         size_t this_run);

}  // namespace coz::cli
