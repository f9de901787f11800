// Baselines matched in time. A program's rate drifts within a run (a table that grows, a cache
// that warms, a machine that gets busier), and an experiment's rate depends on when it ran as
// much as on its speedup. So each experiment is measured against the 0% (baseline) experiments
// nearest it in the program's own time, whichever line they named (at 0% no line is sped up,
// so every baseline measures the undisturbed program): its cost per visit becomes a ratio to
// theirs, and drift cancels out of every comparison. Pure functions over plain numbers.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/statistics.h"

namespace coz::analysis {

// One experiment seen from one progress point.
struct TimedCost {
  double time_ns = 0;  // its midpoint in the program's own time: since its run began, less delays
  double cost = 0;     // effective duration (throughput) or request-ns in flight (latency)
  double visits = 0;   // visits or arrivals
  bool baseline = false;
};

struct TimeMatch {
  // The baselines with visits, by time: indices into the experiments.
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
  size_t k = 0;  // baselines per reference
};

// How many nearest baselines a reference pools, chosen by leave-one-out cross-validation: the k
// (4, 8, 16, ... 256, or all of them) whose reference best predicts each baseline's own cost per
// visit from the others (visits-weighted squared relative error; ties to the larger k). A
// program that does not drift gets every baseline; one that does gets a window that follows it.
size_t choose_neighbours(const std::vector<TimedCost>& experiments);

// References for every experiment from the `k` baselines nearest in time. With `enabled` false
// the windows are still found (the significance test compares a line's experiments with them)
// but every reference is 1.
TimeMatch match_in_time(const std::vector<TimedCost>& experiments, size_t k, bool enabled);

// Whether the baselines' cost per visit depends on time in the run: the first third of them in
// time against the last third, and a permutation p-value of the rank correlation.
struct BaselineTrend {
  size_t baselines = 0;
  double early = 0;    // cost per visit of the earliest third
  double late = 0;     // of the latest third
  double change = 0;   // late / early - 1
  double p_value = 1;  // time and cost per visit unrelated
  // Among baselines of the same time (after matching): the long experiments' cost per visit
  // over the short ones' (split at the median length), minus 1.
  double length_effect = 0;
};

BaselineTrend baseline_trend(const std::vector<TimedCost>& experiments,
                             const std::vector<double>& reference,
                             const std::vector<double>& lengths, size_t rounds, Rng* rng);

}  // namespace coz::analysis
