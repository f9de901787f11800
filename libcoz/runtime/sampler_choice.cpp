// The sampler's choice (see sampler_choice.h).
#include "runtime/sampler_choice.h"

#include <cstdio>

#include "sample/perf_sampler.h"
#include "sample/timer_sampler.h"

namespace coz {
std::unique_ptr<SamplerBackend> make_sampler(SamplerKind kind, const SamplerSettings& settings) {
  if (kind == SamplerKind::kTimer) {
    return std::make_unique<TimerSamplerBackend>(settings);
  }
  return std::make_unique<PerfSamplerBackend>(settings);
}

SamplerChoice choose_sampler(SamplerRequest request, std::atomic<int32_t>& run_choice, bool root) {
  SamplerChoice choice;
  SamplerKind& kind = choice.kind;
  if (request == SamplerRequest::kTimer) {
    kind = SamplerKind::kTimer;
  } else if (request == SamplerRequest::kAuto) {
    int32_t chosen = run_choice.load(std::memory_order_acquire);
    if (!root && chosen > 0) {
      kind = static_cast<SamplerKind>(chosen - 1);
    } else {
      std::string why;
      int err = PerfSamplerBackend::probe(&why);
      if (err != 0 && PerfSamplerBackend::refused(err)) {
        kind = SamplerKind::kTimer;
        choice.note = why.substr(0, why.find(';')) +
                      ": sampling with per-thread CPU-time timers instead (--sampler timer)";
      }
    }
  }
  if (root) {
    run_choice.store(static_cast<int32_t>(kind) + 1, std::memory_order_release);
  }
  return choice;
}

uint64_t measured_resolution_ns(const SamplerBackend& backend) {
  return backend.kind() == SamplerKind::kTimer
             ? static_cast<const TimerSamplerBackend&>(backend).resolution_ns()
             : 0;
}

std::string describe_sampler(const SamplerBackend& backend, uint64_t period_ns) {
  if (backend.kind() == SamplerKind::kPerf) {
    return "perf";
  }
  uint64_t resolution = measured_resolution_ns(backend);
  if (resolution == 0) {
    resolution = period_ns;
  }
  char text[64];
  snprintf(text, sizeof text, "timer, %.3g ms resolution", static_cast<double>(resolution) / 1e6);
  return text;
}

}  // namespace coz
