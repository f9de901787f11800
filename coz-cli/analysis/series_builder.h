// The shared arithmetic of a causal-profile series: one experiment's view of one progress
// point, sums per speedup, and the curve of program speedups against the 0% baseline. Used by
// the estimate itself and by every bootstrap replicate.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/profile_data.h"
#include "analysis/statistics.h"

namespace coz::analysis {

// One experiment seen from one progress point.
struct Observation {
  long key = 0;  // speedup in thousandths, for grouping
  double speedup = 0;
  double duration_ns = 0;
  double visits = 0;  // throughput visits, or latency arrivals
  double in_flight_ns = 0;
  // The cost (duration, or in-flight time for latency) over the cost per visit of the baselines
  // nearest in time (time_matching.h): in visits' worth of the reference, so drift cancels.
  // Equal to the cost when matching is off.
  double matched = 0;
};

struct Group {
  long key = 0;
  double speedup = 0;
  size_t experiments = 0;
  double duration_ns = 0;
  double visits = 0;
  double in_flight_ns = 0;
  double matched = 0;

  void add(const Observation& o);
  // Period per visit (throughput) or mean latency by Little's law; negative when undefined.
  double value_ns(PointMetric kind) const;
  // The same relative to the baselines of the same time: matched cost per visit; negative when
  // undefined.
  double relative() const { return visits > 0 && matched > 0 ? matched / visits : -1; }
};

long speedup_key(double speedup);

// The program speedup of a visit period (or latency) `value` against the 0% baseline's
// `baseline`, both in the same unit: a shorter period, or a lower latency, is a positive speedup.
inline double program_speedup(double value, double baseline) {
  return 1 - value / baseline;
}

// Sums observations per speedup, sorted by speedup. `pick` selects (with repetition) which
// observations to use; null means all of them once.
std::vector<Group> group_by_speedup(const std::vector<Observation>& obs,
                                    const std::vector<size_t>* pick);

}  // namespace coz::analysis
