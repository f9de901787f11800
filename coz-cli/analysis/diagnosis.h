// Why a causal profile has nothing to show, in words that say what to do: Coz's commonest
// complaint is an empty plot with no reason given.
#pragma once

#include "analysis/causal_profile.h"

namespace coz::analysis {

// Empty code when the report has at least one series.
Diagnosis diagnose(const ProfileData& data, const Report& report);

}  // namespace coz::analysis
