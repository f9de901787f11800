// The shared arithmetic of a causal-profile series: one experiment's view of one progress
// point (Observation), sums per speedup (Group, group_by_speedup), a program speedup against the
// 0% baseline, and what a curve of them is summarised by (its slope, impact and fitted curve).
// Used by the estimate itself (causal_profile.cpp), by every bootstrap replicate (bootstrap.cpp)
// and by the scalability table.
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

// A series' curve summarised: the slope through the origin, Coz's impact, and the fitted curve the
// predictions are read from (statistics.h). `points` start at the baseline (0, 0); `weights` are
// the fit's (fit_weights).
struct CurveSummary {
  double slope = 0;
  double impact = 0;
  CurveFit fit;
};
inline CurveSummary summarise_curve(const std::vector<XY>& points,
                                    const std::vector<double>& weights) {
  return CurveSummary{slope_through_origin(points), impact(points), fit_curve(points, weights)};
}

// Sums observations per speedup, sorted by speedup. `pick` selects (with repetition) which
// observations to use; null means all of them once.
std::vector<Group> group_by_speedup(const std::vector<Observation>& obs,
                                    const std::vector<size_t>* pick);

}  // namespace coz::analysis
