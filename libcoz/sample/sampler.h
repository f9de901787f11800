// The sampler interface: one ThreadSampler per profiled thread, created by a SamplerBackend.
// The perf_event backend (perf_sampler.h) is the only one today; a POSIX CPU-timer backend for
// machines that refuse perf_event can implement the same interface.
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
};

using SampleVisitor = void (*)(const Sample& sample, void* context);

class ThreadSampler {
 public:
  virtual ~ThreadSampler() = default;
  // Starts delivering samples (and the sample signal, if any).
  virtual void enable() = 0;
  // Stops sampling; pending samples can still be drained.
  virtual void disable() = 0;
  // Visits every pending sample. Returns the number of samples visited.
  virtual size_t drain(SampleVisitor visit, void* context) = 0;
  // Whether drain() may find anything: a cheap look for the hooks, which ask at every lock
  // release. May say true when there is nothing (a record still being written).
  virtual bool has_pending() const { return true; }
  // A counter the kernel bumps whenever it switches the thread out or back in, readable with one
  // load (the perf page's seqlock, written at each switch and at no sample), or nullptr. A
  // blocking call after which it has not changed did not wait.
  virtual const volatile uint32_t* switch_count() const { return nullptr; }
  // The descriptor the sample signal reports in si_fd, or -1.
  virtual int signal_fd() const = 0;
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

class SamplerBackend {
 public:
  virtual ~SamplerBackend() = default;
  // Opens a sampler for thread `tid` of this process (the caller's own thread or another).
  // Returns nullptr and sets `error` to a user-facing sentence on failure.
  virtual std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) = 0;
};

}  // namespace coz
