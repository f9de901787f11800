// The CPU-time timer sampling backend, for kernels and containers that refuse perf_event (a
// kernel.perf_event_paranoid above 2, as Debian and Ubuntu ship, or a container's seccomp
// profile): a POSIX timer per thread on the thread's own CPU-time clock, signalling that thread
// (SIGEV_THREAD_ID) once per sampling period of its CPU time. Any process may create these for
// its own threads; nothing is asked of the kernel's perf settings.
//
// The sample is taken in the signal handler (ThreadSampler::take): the interrupted instruction
// pointer, the callers found by following frame pointers, and a copy of the words above the
// stack pointer, all read only inside the thread's own stack. The kernel checks CPU-time timers
// at its scheduler tick (1-10 ms), so with a shorter period one signal stands for several periods:
// the timer's overrun count gives each sample its weight, so counts and delays stay per period.
// resolution_ns() reports the CPU time per signal seen so far.
//
// Threading: open_thread() and samplers' destruction run in any threads at once; take() and
// drain() as ThreadSampler says (take() only in the sampled thread's handler).
#pragma once

#include <atomic>
#include <cstdint>

#include "sample/handler_samples.h"
#include "sample/sampler.h"

namespace coz {

class TimerSamplerBackend : public SamplerBackend {
 public:
  explicit TimerSamplerBackend(SamplerSettings settings) : settings_(settings) {}
  std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) override;
  SamplerKind kind() const override { return SamplerKind::kTimer; }
  const char* name() const override { return "timer"; }
  // An SI_TIMER signal with the tagged token in its value; 1 + its overrun periods.
  bool reads_signal(const siginfo_t& info, SignalSample* out) const override;
  // Mean thread CPU time between two signals so far, over every sampler it opened (0 before the
  // first signal): the period, or the kernel's tick when that is longer.
  uint64_t resolution_ns() const override { return tally_.resolution_ns(settings_.period_ns); }
  std::string describe(uint64_t period_ns) const override {
    return tally_.describe(name(), period_ns);
  }

 private:
  friend class TimerThreadSampler;
  SamplerSettings settings_;
  std::atomic<int> next_token_{0};
  SignalTally tally_;
};

}  // namespace coz
