// The perf_event sampling backend: a software task-clock event per thread, sampling the
// instruction pointer and user callchain into an mmap'd ring, with a signal per sample.
// The only code that includes <linux/perf_event.h> is perf_sampler.cpp.
#pragma once

#include "sample/sampler.h"

namespace coz {

class RingGraveyard;

// Threading: open_thread() and samplers' destruction may run in any threads at once.
class PerfSamplerBackend : public SamplerBackend {
 public:
  explicit PerfSamplerBackend(SamplerSettings settings);
  ~PerfSamplerBackend() override;
  // Samplers it opens must be destroyed before it is.
  std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) override;
  SamplerKind kind() const override { return SamplerKind::kPerf; }
  const char* name() const override { return "perf"; }
  // A POLL_* signal naming the event's descriptor (F_SETSIG); one period each.
  bool reads_signal(const siginfo_t& info, SignalSample* out) const override;
  // Whether perf_event_open failed with `err` because it is refused (a paranoid level, a seccomp
  // or container policy, a kernel without perf events), not for want of a resource: the timer
  // sampler then runs instead.
  static bool refused(int err);
  // Its availability check: opens and closes a counting task-clock event for the calling thread.
  // 0 when perf_event works here, else the errno perf_event_open failed with, and the
  // user-facing reason in `why`.
  static int probe(std::string* why);

 private:
  SamplerSettings settings_;
  std::unique_ptr<RingGraveyard> graveyard_;  // rings of closed samplers, unmapped in batches
};

}  // namespace coz
