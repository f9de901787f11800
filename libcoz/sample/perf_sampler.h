// The perf_event sampling backend: a software task-clock event per thread, sampling the
// instruction pointer and user callchain into an mmap'd ring, with a signal per sample.
// The only code that includes <linux/perf_event.h> is perf_sampler.cpp.
#pragma once

#include "sample/sampler.h"

namespace coz {

class PerfSamplerBackend : public SamplerBackend {
 public:
  explicit PerfSamplerBackend(SamplerSettings settings) : settings_(settings) {}
  const char* name() const override { return "perf_event"; }
  std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) override;

 private:
  SamplerSettings settings_;
};

// A sentence explaining why perf_event_open failed with `err`, and what to do about it.
std::string explain_perf_event_error(int err);

}  // namespace coz
