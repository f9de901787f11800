// Off-CPU time: the program's blocking calls (wait_timing.h) become blocked samples of the line
// that made them, and a wait on the line being sped up earns its virtual speedup.
//
// Measured in user space, by timing the blocking calls a program makes through libc (read and
// write, sockets, poll/select/epoll, fsync, sleeps, waits for children). A call waited when the
// kernel switched the thread out meanwhile, which the sampler's perf page shows at the cost of a
// load (sampler.h); its length is read from the time-stamp counter. Without the perf page (the
// timer sampler), a call that took under 1 us did not wait (a thread switched out and woken again
// takes longer: docs/where-it-runs.md, for the measurements), and a longer one waited if the
// thread's context-switch count moved (confirm_wait). The other way to see waits
// without privileges, perf_event's context-switch records, also sees waits that no libc call makes
// (page faults, stdio's own reads), but carries no user address to credit, and puts two records in
// every thread's ring per switch, which the lock-heavy programs fill between samples
// (docs/off-cpu.md).
//
// A wait of t on the selected line, in an experiment with a speedup of s (delay_ns per sampling
// period), counts as t x s of the thread's own speedup (BlockedClock::speedup_ns): every other
// thread owes it, through the ledger, as for a selected-line sample. Waits for the program's own
// threads (locks, condition variables, joins, barriers) are not here: their cause is another
// thread's line, and the sync hooks hand their delays on.
//
// Threads: start() in the constructor's thread before the hooks act; attach() as each thread
// starts; after_wait() in the calling thread, from its hooks (async-signal-safe).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "attribution/sample_attribution.h"
#include "delays/delay_protocol.h"
#include "experiment/experiment_state.h"
#include "hooks/wait_timing.h"
#include "threads/thread_state.h"

namespace coz {

class BlockedTime {
 public:
  BlockedTime(SampleAttribution& attribution, DelayProtocol& delays, ExperimentState& experiment)
      : attribution_(attribution), delays_(delays), experiment_(experiment) {}
  BlockedTime(const BlockedTime&) = delete;
  BlockedTime& operator=(const BlockedTime&) = delete;

  // Chooses how waits are told and timed, with the calling (attached) thread's sampler; returns
  // the mode for wait_timing::set_mode (0 when `on` is false). `period_ns`: the sampling period.
  // `found`: what a process of the run found of this kernel and clock (SharedRun::wait_tests),
  // used when set, else tested here and set (a tenth of a millisecond a process saved).
  int start(bool on, const ThreadState& self, uint64_t period_ns, std::atomic<int32_t>& found);
  // In a forked child: what the parent found (the same kernel and clock), without testing again.
  int inherit(const BlockedTime& parent) {
    period_ns_ = parent.period_ns_;
    counter_works_ = parent.counter_works_;
    origin_tsc_ = parent.origin_tsc_;
    origin_ns_ = parent.origin_ns_;
    gate_calibrated_.store(parent.gate_calibrated_.load());
    return mode_ = parent.mode_;
  }
  // A thread starts (or its state is reused): its switch counter, stack and clock.
  void attach(ThreadState& t, pid_t tid);
  // Without a switch counter: whether a call that passed the gate (wait_timing::may_have_waited)
  // really waited: the thread's context switches (getrusage, about 0.4 us) moved since the last
  // confirmed wait. A call that spent over 1 us on the CPU in the kernel (a large read from the
  // page cache) after a switch elsewhere since then counts as a wait: docs/where-it-runs.md.
  // With a counter, true. Async-signal-safe.
  bool confirm_wait(ThreadState& t);
  // A blocking call that may have waited returned (hooks_api::after_wait).
  // Returns how long the call waited (ns; 0 when it did not).
  uint64_t after_wait(ThreadState& t, const wait_timing::Wait& wait, uintptr_t caller,
                      uintptr_t stack);

  // How waits are measured, for --verbose and the startup record ("calls" or "off").
  const char* method() const { return mode_ & wait_timing::kOn ? "calls" : "off"; }
  std::string describe() const;

 private:
  // The wait's length, the clock read as `ns` (CLOCK_MONOTONIC) after it.
  uint64_t waited_ns(const wait_timing::Wait& wait, uint64_t ns) const;

  SampleAttribution& attribution_;
  DelayProtocol& delays_;
  ExperimentState& experiment_;
  uint64_t period_ns_ = 0;
  int mode_ = 0;
  bool counter_works_ = false;  // the switch counter moved across a sleep at start-up
  uint64_t origin_ns_ = 0;      // CLOCK_MONOTONIC and TSC read together at start-up
  uint64_t origin_tsc_ = 0;
  std::atomic<bool> gate_calibrated_{false};
};

}  // namespace coz
