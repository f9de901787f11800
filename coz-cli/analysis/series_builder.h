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
};

struct Group {
  long key = 0;
  double speedup = 0;
  size_t experiments = 0;
  double duration_ns = 0;
  double visits = 0;
  double in_flight_ns = 0;

  void add(const Observation& o);
  // Period per visit (throughput) or mean latency by Little's law; negative when undefined.
  double value_ns(PointMetric kind) const;
};

long speedup_key(double speedup);

// The program speedup of a visit period (or latency) `value_ns` against the 0% baseline's
// `baseline_ns`: a shorter period, or a lower latency, is a positive speedup.
inline double program_speedup(double value_ns, double baseline_ns) {
  return 1 - value_ns / baseline_ns;
}

// Sums observations per speedup, sorted by speedup. `pick` selects (with repetition) which
// observations to use; null means all of them once.
std::vector<Group> group_by_speedup(const std::vector<Observation>& obs,
                                    const std::vector<size_t>* pick);

// Program speedup at each valid group, (0, 0) first, each y multiplied by `factor`. False when
// there is no valid 0% baseline.
bool speedup_curve(const std::vector<Group>& groups, PointMetric kind, double factor,
                   std::vector<XY>* out);

}  // namespace coz::analysis
