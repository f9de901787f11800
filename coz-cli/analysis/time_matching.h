// Baselines matched in time. A program's rate drifts within a run (a table that grows, a cache
// that warms, a machine that gets busier), and an experiment's rate depends on when it ran as
// much as on its speedup. So each experiment is measured against the 0% (baseline) experiments
// nearest it in time, whichever line they named (at 0% no line is sped up, so every baseline
// measures the undisturbed program): its cost per visit becomes a ratio to theirs, and drift
// cancels out of every comparison. "Nearest" on one of two clocks, whichever predicts the
// baselines better: the program's own time within its run (runs repeated under --budget share
// their phases), or the profile's time (one run after another, for a machine whose load
// changes between runs). Pure functions over plain numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/statistics.h"

namespace coz::analysis {

// One experiment seen from one progress point.
struct TimedCost {
  double run_time_ns = 0;      // its midpoint since its run began, less the delays before it
  double profile_time_ns = 0;  // its midpoint since the profile's first run began, real time
  size_t run = 0;
  double cost = 0;    // effective duration (throughput) or request-ns in flight (latency)
  double visits = 0;  // visits or arrivals
  bool baseline = false;
};

enum class Clock { kRun, kProfile };

// Which clock and how many nearest baselines a reference pools.
struct Matching {
  Clock clock = Clock::kRun;
  size_t k = 0;
};

inline double time_on(Clock clock, const TimedCost& e) {
  return clock == Clock::kRun ? e.run_time_ns : e.profile_time_ns;
}

struct TimeMatch {
  Matching matching;
  // The baselines with visits, by time on the clock: indices into the experiments.
  std::vector<size_t> baselines;
  // Per experiment: its reference baselines are baselines[left, right), less itself when `self`.
  struct Window {
    size_t left = 0, right = 0;
    bool self = false;
  };
  std::vector<Window> windows;
  // Per experiment: their pooled cost per visit (visits-weighted, as every group mean is); 1 for
  // every experiment when matching is off or there is no baseline.
  std::vector<double> reference;
};

// The clock and number of nearest baselines, chosen by leave-one-out cross-validation: of the
// pairs (either clock; k of 4, 8, 16, ... 256, or all of them), how well each one's reference
// predicts each baseline's own cost per visit from the others (visits-weighted squared relative
// error), then the simplest pair (the most baselines, the run's clock) within one standard error
// of the best. A program that does not drift gets every baseline; one that does gets a window
// that follows it.
Matching choose_matching(const std::vector<TimedCost>& experiments);

// References for every experiment from the baselines nearest in time as `matching` says. With
// `enabled` false the windows are still found (the significance test compares a line's
// experiments with them) but every reference is 1.
TimeMatch match_in_time(const std::vector<TimedCost>& experiments, Matching matching, bool enabled);

// Whether the baselines' cost per visit depends on time within the run: each baseline relative to
// the mean of its run's baselines (so runs slowed by other work do not count; a run with one
// baseline says nothing), the earliest third of them in the run against the latest third, and a
// permutation p-value of the rank correlation of time in the run with that relative cost.
struct BaselineTrend {
  size_t baselines = 0;
  double early = 0;    // cost per visit of the earliest third: relative, times the overall mean
  double late = 0;     // of the latest third
  double change = 0;   // late / early - 1
  double p_value = 1;  // time and cost per visit unrelated
  // Among baselines of the same time (after matching): the long experiments' cost per visit
  // over the short ones' (split at the median length), minus 1.
  double length_effect = 0;
};

// How many draws baseline_trend() takes from its Rng (its permutation test's), known before it
// runs, so later work can start at its own place in the stream while the test runs.
uint64_t baseline_trend_draws(const std::vector<TimedCost>& experiments, size_t rounds);

BaselineTrend baseline_trend(const std::vector<TimedCost>& experiments,
                             const std::vector<double>& reference,
                             const std::vector<double>& lengths, size_t rounds, Rng* rng);

}  // namespace coz::analysis
