// The CPU-time timer sampling backend, for kernels and containers that refuse perf_event (a
// kernel.perf_event_paranoid above 2, as Debian and Ubuntu ship, or a container's seccomp
// profile): a POSIX timer per thread on the thread's own CPU-time clock, signalling that thread
// (SIGEV_THREAD_ID) once per sampling period of its CPU time. Any process may create these for
// its own threads; nothing is asked of the kernel's perf settings.
//
// The sample is taken in the signal handler (ThreadSampler::take): the interrupted instruction
// pointer, the callers found by following frame pointers, and a copy of the words above the
// stack pointer, all read only inside the thread's own stack.
//
// The kernel checks CPU-time timers only at its scheduler tick (1-10 ms; 4 ms on Debian's HZ 250).
// The timer is set to fire at every tick that finds the thread running (an interval of 1 ns of
// its CPU time), and a signal stands for the CPU time since the one before (the timer's overruns,
// in nanoseconds), in periods (periods_of). The first after enable() stands for a tick instead
// of the time before it (or for that time, when more): what a thread runs after its last signal
// is never counted, and for a thread that runs from start to end the time before its first tick
// and after its last add up to a tick on average, however short its life (it is sampled with the
// chance of its running time over the tick's). Counted from the CPU time between signals alone,
// a child that lives 2 ms kept a fifth of its samples (benchmarks/procs, makej). Later
// signals do not stand for a tick each: a thread woken from a sleep meets the tick more or less
// often than its CPU time says (-15% to +35% in a loop of 0.2-0.5 ms runs and 0.75 ms sleeps),
// where the CPU time between signals is exact. Where the tick is unknown, the timer fires once
// per period with its overruns as weight. resolution_ns() reports the CPU time per signal seen so
// far.
//
// Threading: open_thread() and samplers' destruction run in any threads at once; take() and
// drain() as ThreadSampler says (take() only in the sampled thread's handler).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "sample/handler_samples.h"
#include "sample/sampler.h"

namespace coz {

// `ns` of CPU time in sampling periods of `period_ns`: whole periods, the remainder rounded up with
// its chance (`random`, drawn anew each time), so the expected periods are exact and no remainder
// is lost when a thread ends. 0: no sample.
inline uint32_t periods_of(uint64_t ns, uint64_t period_ns, uint64_t random) {
  uint64_t periods = ns / period_ns;
  if (random % period_ns < ns % period_ns) {
    periods++;
  }
  return static_cast<uint32_t>(std::min<uint64_t>(periods, uint64_t{1} << 20));
}

class TimerSamplerBackend : public SamplerBackend {
 public:
  explicit TimerSamplerBackend(SamplerSettings settings);
  std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) override;
  SamplerKind kind() const override { return SamplerKind::kTimer; }
  const char* name() const override { return "timer"; }
  // An SI_TIMER signal with the tagged token in its value, and its overruns.
  bool reads_signal(const siginfo_t& info, SignalSample* out) const override;
  // Mean thread CPU time between two signals so far, over every sampler it opened (0 before the
  // first signal): about the kernel's tick for threads that run, less for threads that run in
  // short bursts between sleeps.
  uint64_t resolution_ns() const override { return tally_.resolution_ns(settings_.period_ns); }
  std::string describe(uint64_t period_ns) const override {
    return tally_.describe(name(), period_ns);
  }

 private:
  friend class TimerThreadSampler;
  SamplerSettings settings_;
  // The kernel's tick, if the timer fires at each one; 0: once per period.
  uint64_t tick_ns_ = 0;
  std::atomic<int> next_token_{0};
  SignalTally tally_;
};

}  // namespace coz
