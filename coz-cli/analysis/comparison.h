// `coz compare`'s answer: how much faster the new build is than the old, per progress point and
// in wall-clock time, from runs of both at many layouts of their memory (layout/layout_shift.h).
//
// The unit of measurement is the layout: at each, both programs ran (each the same number of
// times, interleaved in a random order), and the layout's difference is the mean log speed of
// the new build's runs minus the old's. Layouts are drawn at random, so their differences are
// independent: their mean, a t interval over them and a t test carry the variation that layouts
// cause as well as the machine's. Speeds are compared as logarithms (a ratio), so a run twice as
// fast and one twice as slow weigh alike.
//
// When each program ran more than once at a layout, the variation splits in two (a one-way
// analysis of variance per program): run to run at one layout (the machine's noise) and between
// layouts (what moving the stack, heap and mappings does by itself).
//
// Pure: runs in, numbers out; unit-tested.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace coz::analysis {

// One run of one program at one layout.
struct ComparedRun {
  int program = 0;     // 0: the old build, 1: the new one
  size_t layout = 0;   // which layout (runs of one layout share it)
  double seconds = 0;  // its wall-clock time
  // Visits of each throughput point (departures of each latency point), over the run's
  // processes.
  std::vector<std::pair<std::string, double>> visits;
  // Each latency point's requests in flight integrated over the run (request-nanoseconds): over
  // its departures, the mean latency (Little's law).
  std::vector<std::pair<std::string, double>> in_flight_ns;
};

struct CompareOptions {
  double confidence = 0.95;  // of every interval, and 1 - the test's level
  double precision = 0.01;   // the interval's half-width aimed at (a fraction of the speed)
};

enum class Verdict {
  kFaster,        // the interval is above 0
  kSlower,        // below it
  kNoDifference,  // it holds 0
  kTooFew,        // fewer than two layouts with both programs
};

struct MetricComparison {
  std::string name;        // "wall time", or the progress point's name
  bool wall_time = false;  // then speeds are 1 / seconds; else visits per second
  bool latency = false;    // a latency point's mean latency: speeds are 1 / seconds too
  // Geometric means over every run: seconds (wall time, latency) or visits per second.
  double old_value = 0;
  double new_value = 0;
  // The new build's speedup in a causal profile's sense: 1 - its time per visit (or wall time)
  // over the old's (+0.25: a quarter of the time saved, 1.33 times the speed), with its interval.
  double speedup = 0;
  double ratio = 1;  // the new build's speed over the old's (1.33)
  double low = 0;
  double high = 0;
  bool has_interval = false;
  double p_value = 1;  // two-sided t test: no difference
  Verdict verdict = Verdict::kTooFew;
  size_t layouts = 0;  // with both programs measured
  // Standard deviations of log speed, as fractions of the speed; negative when unknown.
  double total_spread = -1;   // between runs, layouts included
  double layout_spread = -1;  // between layouts alone (needs repeats at a layout)
  double run_spread = -1;     // between runs at one layout
  // Layouts in all for the interval's half-width to reach the precision; 0 when it has.
  size_t layouts_needed = 0;
};

struct Comparison {
  // Wall time first, then points by name (a latency point's rate, then its latency).
  std::vector<MetricComparison> metrics;
  size_t runs = 0;
  std::vector<std::string> skipped;  // points not visited in every run: why, a phrase each
};

Comparison compare_runs(const std::vector<ComparedRun>& runs, const CompareOptions& options);

// A line's own speedup, from its samples per unit of progress in each build: 1 - new / old
// (negative when the line got slower, 1 when it has no samples left), with an interval at
// `confidence`: sample counts are Poisson, so the log of the ratio of the two rates has a variance
// of about 1/old + 1/new samples (half a sample added to each, so none left still has a bound).
struct LineSpeedup {
  double value = 0;
  double low = 0;
  double high = 0;
};
// False (unknown) without old samples or without visits.
bool line_speedup(double old_samples, double old_visits, double new_samples, double new_visits,
                  double confidence, LineSpeedup* out);

// Whether an achieved speedup agrees with a predicted one: their difference lies within the two
// intervals' half-widths combined (as for independent estimates, sqrt(a^2 + b^2)).
bool consistent(double predicted, double p_low, double p_high, double achieved, double a_low,
                double a_high);

}  // namespace coz::analysis
