// Experiment scheduling, kept pure: the clock and the random source come in from outside, so the
// choices are unit-tested without perf_event. The profiler thread owns one Scheduler.
//
// Section 5.1.2 and 5.2.2: lines are chosen by sampling (the caller offers the first in-scope
// line sampled after the previous experiment), speedups at random in 5% steps with 0% drawn
// often enough that every line gets its own baseline, and the experiment length adapts both ways
// to the progress-point rate: it doubles while an experiment sees too few visits to measure a
// rate, and halves (down to min_length_ns) while it sees many more than it needs. An
// experiment's information grows with its length, so where visits are plentiful shorter
// experiments cost little precision each and test more lines, at more speedups, in the same time
// (measured by benchmarks/confidence).
#pragma once

#include <cstdint>
#include <random>

#include "config/run_config.h"

namespace coz {

// The pause between experiments, in sampling periods: time for samples still in flight to land
// before the next experiment's line is chosen.
inline constexpr uint64_t kCooloffPeriods = 10;

struct SchedulerSettings {
  double zero_speedup_share = kDefaultZeroSpeedupShare;  // probability of a 0% experiment
  int fixed_speedup = -1;                                // 0-100 to always use it, -1 for random
  int speedup_step = kDefaultSpeedupStep;                // non-zero draws: multiples up to 100
  uint64_t initial_length_ns = kDefaultExperimentLengthNs;
  uint64_t max_length_ns = 64000000000ull;
  uint64_t min_length_ns = 100000000;  // halving stops here (a hundred samples per thread)
  uint64_t min_visits = 5;             // fewer visits than this doubles the length
  uint64_t plenty_visits = 100;        // more visits than this halves the length
  uint64_t cooloff_ns = kCooloffPeriods * kDefaultSamplingPeriodNs;  // see kCooloffPeriods
};

// The random source: any uniform random bit generator producing 64-bit values.
using Random = std::mt19937_64;

class Scheduler {
 public:
  explicit Scheduler(SchedulerSettings settings)
      : settings_(settings), length_ns_(settings.initial_length_ns) {}

  // A speedup in percent: the fixed one, or 0 with probability zero_speedup_share and otherwise
  // uniform over the multiples of speedup_step up to 100 (5, 10, ..., 100 by default).
  int draw_speedup(Random& random) const;

  // The length of the next experiment.
  uint64_t length_ns() const { return length_ns_; }

  // Called with the progress-point visits the finished experiment saw: doubles the length while
  // there are fewer than min_visits in all (up to max_length_ns), halves it while every point
  // visited has more than plenty_visits (down to min_length_ns, or the initial length if that is
  // shorter).
  // `fewest_visits`: the least visited progress point's visits, among points visited at all.
  void finished(uint64_t visits, uint64_t fewest_visits);

  const SchedulerSettings& settings() const { return settings_; }

 private:
  SchedulerSettings settings_;
  uint64_t length_ns_;
};

}  // namespace coz
