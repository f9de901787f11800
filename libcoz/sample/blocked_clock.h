// Blocked samples: a sampling clock that runs while a thread waits off the CPU in a blocking call,
// as the task clock runs while it computes. A wait of t nanoseconds holds on average t / period
// blocked samples, each credited to the line that made the call (section 5.2.2's samples, for
// time the task clock cannot see).
//
// The gaps between blocked samples are drawn from an exponential distribution with the sampling
// period as mean. A fixed gap would alias with a program's own rhythm (a 0.9 ms read then a
// 0.1 ms write, in turn, would put every sample on the write); an exponential gap is memoryless,
// so each nanosecond of waiting is equally likely to hold a sample whatever came before, and a
// wait of t holds at least one with probability 1 - exp(-t / period).
//
// Pure; one per thread, touched only by that thread.
#pragma once

#include <cstdint>

namespace coz {

class BlockedClock {
 public:
  // A fresh clock; `seed` tells threads' draws apart (any value).
  explicit BlockedClock(uint64_t seed = 1) { reseed(seed); }
  void reseed(uint64_t seed) {
    state_ = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    state_ = state_ ? state_ : 1;
    until_ns_ = -1;
  }

  // A wait of `waited_ns` ended: the number of blocked samples it holds.
  uint64_t on_wait(uint64_t waited_ns, uint64_t period_ns);

  // The virtual speedup a wait of `waited_ns` on the selected line earns, for a speedup of
  // `delay_ns` per sampling period, given that the wait held a blocked sample (only such waits
  // are looked up and credited). Divided by the chance of holding one, so that over all waits
  // the expectation is exactly waited x speedup; a wait much longer than the period earns
  // waited x speedup itself, with no sampling noise.
  static uint64_t speedup_ns(uint64_t waited_ns, uint64_t period_ns, uint64_t delay_ns);

 private:
  // Beyond this many periods of waiting past its first sample, a wait's samples are drawn at once.
  static constexpr double kDrawsPerWait = 64;

  double draw_uniform();
  double draw_normal();  // mean 0, variance 1
  uint64_t draw_gap(uint64_t period_ns);

  int64_t until_ns_ = -1;  // waiting left before the next blocked sample; < 0: not drawn yet
  uint64_t state_ = 0;
};

}  // namespace coz
