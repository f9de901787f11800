// The sampler interface: one ThreadSampler per profiled thread, created by a SamplerBackend.
// Two backends: perf_event (perf_sampler.h: the kernel writes each sample into a ring, with a
// callchain and a copy of the stack) and a POSIX CPU-time timer per thread (timer_sampler.h: for
// kernels and containers that refuse perf_event; the sample is taken in the signal handler, from
// the interrupted registers and the thread's own stack). choose_sampler.h picks one.
//
// Threading: open_thread() and the destructor run in ordinary context (thread start/exit, start-up,
// shut-down). drain() is async-signal-safe and runs in the sampled thread's signal handler, or in
// the exiting thread at shut-down; callers make sure only one thread drains a sampler at a time.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "config/run_config.h"

namespace coz {

struct Sample {
  uintptr_t ip;               // instruction pointer at the sample
  const uint64_t* callchain;  // callers' return addresses, innermost first (no ip, no markers)
  size_t depth;
  const uint64_t* stack;  // words of the user stack from the stack pointer up (may be empty)
  size_t stack_words;
  uint32_t weight = 1;  // sampling periods of CPU time it stands for (a timer's overruns)
};

using SampleVisitor = void (*)(const Sample& sample, void* context);

class ThreadSampler {
 public:
  virtual ~ThreadSampler() = default;
  // Starts delivering samples (and the sample signal, if any).
  virtual void enable() = 0;
  // Stops sampling; pending samples can still be drained.
  virtual void disable() = 0;
  // From the sampling signal's handler, in the sampled thread, before the drain: a backend that
  // samples in the handler records the interrupted state (`context`, a ucontext_t) and the
  // timer's `overrun` here, reading the stack only within [stack_lo, stack_hi), the thread's own
  // (0, 0: unknown, the instruction pointer alone). Async-signal-safe.
  virtual void take(const void* context, int overrun, uintptr_t stack_lo, uintptr_t stack_hi) {
    (void)context, (void)overrun, (void)stack_lo, (void)stack_hi;
  }
  // Visits every pending sample. Returns the sampling periods visited (the samples' weights).
  virtual size_t drain(SampleVisitor visit, void* context) = 0;
  // Whether drain() may find anything: a cheap look for the hooks, which ask at every lock
  // release. May say true when there is nothing (a record still being written).
  virtual bool has_pending() const { return true; }
  // A counter the kernel bumps whenever it switches the thread out or back in, readable with one
  // load (the perf page's seqlock, written at each switch and at no sample), or nullptr. A
  // blocking call after which it has not changed did not wait.
  virtual const volatile uint32_t* switch_count() const { return nullptr; }
  // The token the sample signal carries (sample_signal::token): the descriptor perf reports in
  // si_fd, the timer's own number in its value; -1 for none.
  virtual int signal_token() const = 0;
  // Samples the kernel dropped because the buffer was full. Any thread may call it while the
  // sampled thread drains (in a signal handler).
  virtual uint64_t lost() const = 0;
};

struct SamplerSettings {
  uint64_t period_ns = kDefaultSamplingPeriodNs;  // one sample per period of thread CPU time
  int signal = 0;                                 // signal sent with each sample; 0 for none
  uint32_t max_stack = 32;                        // callchain depth
  uint32_t stack_bytes = 2048;  // user stack copied with each sample, for leaf library code
};

// The backends, as the startup record and --sampler name them.
enum class SamplerKind { kPerf, kTimer };
inline const char* sampler_name(SamplerKind kind) {
  return kind == SamplerKind::kPerf ? "perf" : "timer";
}

class SamplerBackend {
 public:
  virtual ~SamplerBackend() = default;
  virtual SamplerKind kind() const = 0;
  // Opens a sampler for thread `tid` of this process (the caller's own thread or another).
  // Returns nullptr and sets `error` to a user-facing sentence on failure.
  virtual std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) = 0;
};

}  // namespace coz
