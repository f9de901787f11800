// Why a causal profile has nothing to show, in words that say what to do: Coz's commonest
// complaint is an empty plot with no reason given.
#pragma once

#include "analysis/causal_profile.h"

namespace coz::analysis {

// Empty code when the report has at least one series.
Diagnosis diagnose(const ProfileData& data, const Report& report);

// The words before a diagnosis: "no causal profile" when the report still has a scalability
// table to show (a load sweep), "nothing to show" otherwise.
inline const char* diagnosis_heading(const Report& report) {
  return report.scalability.empty() ? "nothing to show" : "no causal profile";
}

}  // namespace coz::analysis
