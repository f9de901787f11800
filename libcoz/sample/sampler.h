// The sampler interface: one ThreadSampler per profiled thread, created by a SamplerBackend (an
// engine). Two engines: perf_event (perf_sampler.h: the kernel writes each sample into a ring,
// with a callchain and a copy of the stack) and a POSIX CPU-time timer per thread
// (timer_sampler.h: for kernels and containers that refuse perf_event; the sample is taken in the
// signal handler, from the interrupted registers and the thread's own stack). Each engine has its
// own availability check, name, resolution and signal recognition; sampler_choice.h picks one,
// once, and everything after talks to this interface. A new engine is a new file and a row there.
//
// Threading: open_thread() and the destructor run in ordinary context (thread start/exit, start-up,
// shut-down). drain() is async-signal-safe and runs in the sampled thread's signal handler, or in
// the exiting thread at shut-down; callers make sure only one thread drains a sampler at a time.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include <atomic>
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

// Where the runtime shows that a thread is not running its own code: each is set while the thread
// waits in a call the hooks see, or pauses for delays (threads/thread_delays.h). Read by any
// thread.
struct ThreadWaits {
  const std::atomic<bool>* blocked = nullptr;        // a synchronisation wait
  const std::atomic<bool>* in_call = nullptr;        // a timed blocking call (read, poll, sleep)
  const std::atomic<uint64_t>* pause_end = nullptr;  // a pause, until this time (0: none)
  const std::atomic<uint32_t>* begun = nullptr;      // waits of the first two kinds begun so far
  bool now() const {
    return (blocked && blocked->load(std::memory_order_acquire)) ||
           (in_call && in_call->load(std::memory_order_acquire)) ||
           (pause_end && pause_end->load(std::memory_order_acquire) != 0);
  }
};

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
  // The token the sample signal carries (platform::sample_token): the descriptor perf reports in
  // si_fd, the timer's own number in its value; -1 for none.
  virtual int signal_token() const = 0;
  // Samples the kernel dropped because the buffer was full. Any thread may call it while the
  // sampled thread drains (in a signal handler).
  virtual uint64_t lost() const = 0;
  // Where the runtime shows the thread is not running its own code (ThreadWaits), for an engine
  // that chooses when to signal; they outlive the sampler.
  virtual void watch(const ThreadWaits& waits) { (void)waits; }
  // For an engine that signals the thread from another: true from just before it decides to
  // signal until the signal's handler runs (nullptr: no such engine). A thread about to wait or
  // pause lets a signal in flight land first or calls it off (before_wait, from
  // ThreadDelays::before_stopping), or it would cut the wait short.
  virtual const std::atomic<bool>* in_flight() const { return nullptr; }
  // In the thread, as it begins a wait or a pause while in_flight() is true: the signal lands now
  // or is called off (within bounds: see the engine). `can_land`: false where the signal may be
  // blocked (a pause, which may run in the sample handler; an exec), so none is waited for.
  virtual void before_wait(bool can_land) { (void)can_land; }
};

struct SamplerSettings {
  uint64_t period_ns = kDefaultSamplingPeriodNs;  // one sample per period of thread CPU time
  int signal = 0;                                 // signal sent with each sample; 0 for none
  uint32_t max_stack = 32;                        // callchain depth
  uint32_t stack_bytes = 2048;  // user stack copied with each sample, for leaf library code
  // How an engine with a thread of its own (clock_sampler.h) starts it: the runtime passes the
  // real pthread_create, so no hook sees the profiler's thread.
  int (*create_thread)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) = pthread_create;
};

// The engines (a run's shared memory keeps the root's as its number + 1).
enum class SamplerKind { kPerf, kTimer, kClock };

// A sampling signal as the engine that sent it reads it.
struct SignalSample {
  int token = -1;   // the sending sampler's (ThreadSampler::signal_token)
  int overrun = 0;  // periods it stands for beyond one (a timer's overruns)
};

class SamplerBackend {
 public:
  virtual ~SamplerBackend() = default;
  virtual SamplerKind kind() const = 0;
  // As the startup record and --sampler name it: "perf", "timer", "clock".
  virtual const char* name() const = 0;
  // Opens a sampler for thread `tid` of this process (the caller's own thread or another).
  // Returns nullptr and sets `error` to a user-facing sentence on failure.
  virtual std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) = 0;
  // Whether `info` is a signal of this engine's samplers, and what it carries. Only the form is
  // checked; which sampler sent it, the caller looks up by the token. Async-signal-safe.
  virtual bool reads_signal(const siginfo_t& info, SignalSample* out) const = 0;
  // The engine's own thread, never to be sampled as the program's (0: none).
  virtual pid_t own_thread() const { return 0; }
  // Mean thread CPU time between two signals so far (0: one signal per period, exactly).
  virtual uint64_t resolution_ns() const { return 0; }
  // CPU time the engine's own thread has used so far (0: it has none).
  virtual uint64_t own_cpu_ns() const { return 0; }
  // As --verbose and the summary name it: the name, with the resolution measured where it is
  // not the period ("timer, 4 ms resolution"; before the first signal, `period_ns`).
  virtual std::string describe(uint64_t period_ns) const {
    (void)period_ns;
    return name();
  }
};

}  // namespace coz
