// The sampling-thread engine: 1 ms samples without perf_event and without the kernel's tick (issue
// 51). One thread of the profiler wakes about every sampling period (CLOCK_MONOTONIC, no timer
// slack), reads the CPU clock of each thread it samples, and signals each thread that ran half a
// period or more since its last sample and is not waiting in a blocking call the hooks see or
// pausing (ThreadSampler::watch). The sample, taken in that thread's handler as the timer
// engine's (handler_samples.h), stands for the CPU time since the last one, in whole periods, the
// remainder carried to the next.
//
// When the signal lands: a thread that began no wait since the last pass is signalled by its own
// one-shot CLOCK_MONOTONIC timer (SIGEV_THREAD_ID, SI_TIMER with a tagged token), set for 50 us
// after the pass began: the pass is over then. Signalled during the pass, a thread was sampled
// while the sampling thread held the core of another thread of the program, and in a loop whose
// threads meet at a barrier that one was late to the meeting: the first waited for it, and a spin
// that took 15% of the time took 30% of the samples (the marked line 49% against 65% with perf).
// A thread that waits often is signalled at once, during the pass: set 50 us ahead, its signal
// would mostly be called off by a wait (before_wait), and its samples fall where it does not
// wait. A thread that begins a wait or a pause with its signal set calls it off (its periods go to
// the next sample); one sent at once it lets land first. Where no timer can be created (the
// pending-signal limit), every signal is sent at once (rt_tgsigqueueinfo, SI_QUEUE).
//
// A thread whose clock did not move
// is read less and less often (every 2^k wake-ups, k up to 6), and while no clock moves at all the
// sampling thread's own sleep doubles, up to 16 periods: idle threads, and an idle program, cost
// little. Measured against the other designs in benchmarks/sampler.
//
// Threading: open_thread() and samplers' destruction run in any threads at once (a mutex over the
// list, which the sampling thread holds while it reads and signals); take() and drain() as
// ThreadSampler says. The sampling thread blocks every signal and is started by the first
// open_thread(), with SamplerSettings::create_thread (the runtime's real pthread_create: the hooks
// never see it).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "sample/handler_samples.h"
#include "sample/sampler.h"

namespace coz {

class ClockThreadSampler;

class ClockSamplerBackend : public SamplerBackend {
 public:
  explicit ClockSamplerBackend(SamplerSettings settings) : settings_(settings) {}
  ~ClockSamplerBackend() override;
  std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) override;
  SamplerKind kind() const override { return SamplerKind::kClock; }
  const char* name() const override { return "clock"; }
  // An SI_TIMER or SI_QUEUE signal with the tagged token in its value.
  bool reads_signal(const siginfo_t& info, SignalSample* out) const override;
  // The sampling thread (known once the first open_thread() has returned).
  pid_t own_thread() const override { return tid_.load(std::memory_order_acquire); }
  uint64_t resolution_ns() const override { return tally_.resolution_ns(settings_.period_ns); }
  uint64_t own_cpu_ns() const override;
  // "clock, 1.1 ms resolution, its thread 0.4% of a core".
  std::string describe(uint64_t period_ns) const override;

 private:
  friend class ClockThreadSampler;
  static void* sampling_main(void* self);
  void sample_once(bool* moved);
  bool start_thread(std::string* error);
  void add(ClockThreadSampler* sampler);
  void remove(ClockThreadSampler* sampler);

  SamplerSettings settings_;
  std::atomic<int> next_token_{0};
  SignalTally tally_;
  std::mutex mutex_;  // over threads_
  std::vector<ClockThreadSampler*> threads_;
  bool started_ = false;  // with mutex_
  std::atomic<bool> stop_{false};
  pthread_t thread_{};
  std::atomic<pid_t> tid_{0};  // the sampling thread's, set by it as it starts
  uint64_t started_ns_ = 0;    // CLOCK_MONOTONIC, set before the thread starts
  uint64_t tick_ = 0;          // the sampling thread's own
  // When its last pass over the threads ended (CLOCK_MONOTONIC): a signal is late from there.
  std::atomic<uint64_t> pass_end_ns_{0};
};

}  // namespace coz
