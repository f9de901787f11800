// Load amplification for one thread (dissertation section 6.1.2, eq. 6.1-6.2).
//
// A thread that visits arrival points is virtually sped up by d per arrival, through the same
// ledger as line speedups, so its effective inter-arrival period is its real one minus d. d is
// either fixed (--arrival-speedup) or derived from a target load factor F (--load): the pacer
// measures the thread's own inter-arrival period p (real time minus the time it spent paused
// for other threads' speedups, from its first arrival on) and uses d = p * (1 - 1/F), so the
// effective period is p / F. d never exceeds 99% of the measured period: an effective period at
// or below zero would mean nothing. The arrivals seen at the first observation earn nothing
// (neither their period nor when they happened is known).
//
// Pure: the caller passes the clock and the thread's pause total. One pacer per thread, used only
// by that thread (in its hooks and its signal handler).
#pragma once

#include <atomic>
#include <cstdint>

namespace coz {

struct AmplifySettings {
  uint64_t arrival_speedup_ns = 0;  // fixed speedup per arrival, or 0
  double load = 0;                  // target load factor (> 1), or 0
  // Delays are inserted for arrivals.
  bool on() const { return arrival_speedup_ns != 0 || load > 1.0; }
  // The user asked for amplification (load 1 included: a sweep's baseline level).
  bool requested() const { return arrival_speedup_ns != 0 || load >= 1.0; }
};

class ArrivalPacer {
 public:
  // The thread's arrivals now total `arrivals` at time `now_ns`, and it has paused `paused_ns` in
  // all: returns the virtual speedup, in nanoseconds, earned by the arrivals since the last call.
  uint64_t on_arrivals(const AmplifySettings& settings, uint64_t arrivals, uint64_t now_ns,
                       uint64_t paused_ns);
  // The thread's own inter-arrival period measured so far, or 0 before two observations.
  // Read by the profiler thread too.
  uint64_t period_ns() const { return period_ns_.load(std::memory_order_relaxed); }
  // Arrivals seen so far.
  uint64_t seen() const { return seen_; }
  // Starts over (the state is reused by another thread).
  void reset();

 private:
  uint64_t seen_ = 0;  // arrivals already turned into speedup (or seen with none)
  bool started_ = false;
  uint64_t start_ns_ = 0, start_paused_ns_ = 0, start_arrivals_ = 0;
  std::atomic<uint64_t> period_ns_{0};
};

}  // namespace coz
