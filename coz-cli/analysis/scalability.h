// The scalability table of a load sweep (dissertation Figures 6.3 and 6.6): throughput and
// latency of each progress point at each load level, from the 0% experiments of every line.
#pragma once

#include <vector>

#include "analysis/causal_profile.h"

namespace coz::analysis {

std::vector<ScalabilityRow> scalability_table(const ProfileData& data,
                                              const AnalysisOptions& options);

}  // namespace coz::analysis
