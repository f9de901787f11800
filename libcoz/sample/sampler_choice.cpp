// The choice of sampling engine (see sampler_choice.h).
#include "sample/sampler_choice.h"

#include "sample/perf_sampler.h"
#include "sample/timer_sampler.h"

namespace coz {

std::unique_ptr<SamplerBackend> make_sampler(SamplerKind kind, const SamplerSettings& settings) {
  if (kind == SamplerKind::kTimer) {
    return std::make_unique<TimerSamplerBackend>(settings);
  }
  return std::make_unique<PerfSamplerBackend>(settings);
}

SamplerChoice choose_sampler(SamplerRequest request) {
  SamplerChoice choice;
  if (request == SamplerRequest::kTimer) {
    choice.kind = SamplerKind::kTimer;  // any process may time its own threads
    return choice;
  }
  std::string why;
  int err = PerfSamplerBackend::probe(&why);
  if (err == 0) {
    return choice;
  }
  bool refused = PerfSamplerBackend::refused(err);
  if (request == SamplerRequest::kAuto && refused) {
    choice.kind = SamplerKind::kTimer;
    choice.note = why.substr(0, why.find(';')) +
                  ": sampling with per-thread CPU-time timers instead (--sampler timer)";
    return choice;
  }
  choice.error = why;
  if (refused) {
    choice.error += kTimerInstead;
  }
  return choice;
}

}  // namespace coz
