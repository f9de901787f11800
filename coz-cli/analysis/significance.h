// Which lines are flagged: a permutation test of each line's slope against the baselines it is
// compared with, the false discovery rate held over each progress point's lines, and a floor the
// impact must reach. Pure and seeded.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/causal_profile.h"
#include "analysis/statistics.h"

namespace coz::analysis {

// Permutation test of "the line's speedup makes no difference to the program": the ordinary
// least-squares slope of each experiment's time-matched rate (visits per matched cost) against
// its line speedup, over the line's experiments and the baselines nearest them in time,
// against the slopes after shuffling the speedups among them. Exact under that null for any
// number of experiments.
double slope_permutation_p(const Family& f, const std::vector<size_t>& members, size_t rounds,
                           Rng* rng);

// Benjamini-Hochberg over the lines of each (progress point, load level), on the permutation
// p-values: a rejected line helps (impact above 0) or hurts (slope below 0, contention) when its
// impact interval agrees and the impact is at least the floor: statistically clear and large
// enough to be more than the profiler's own bias.
void flag_significant(std::vector<Series>* series, const AnalysisOptions& o);

}  // namespace coz::analysis
