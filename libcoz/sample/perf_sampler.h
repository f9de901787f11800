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

 private:
  SamplerSettings settings_;
  std::unique_ptr<RingGraveyard> graveyard_;  // rings of closed samplers, unmapped in batches
};

}  // namespace coz
