// The choice of sampling engine (see sampler_choice.h).
#include "sample/sampler_choice.h"

#include "base/own_fds.h"
#include "sample/clock_sampler.h"
#include "sample/perf_sampler.h"
#include "sample/timer_sampler.h"

namespace coz {

std::unique_ptr<SamplerBackend> make_sampler(SamplerKind kind, const SamplerSettings& settings) {
  if (kind == SamplerKind::kTimer) {
    return std::make_unique<TimerSamplerBackend>(settings);
  }
  if (kind == SamplerKind::kClock) {
    return std::make_unique<ClockSamplerBackend>(settings);
  }
  return std::make_unique<PerfSamplerBackend>(settings);
}

SamplerChoice choose_sampler(SamplerRequest request) {
  SamplerChoice choice;
  if (request == SamplerRequest::kTimer) {
    choice.kind = SamplerKind::kTimer;  // any process may time its own threads
    return choice;
  }
  if (request == SamplerRequest::kClock) {
    choice.kind = SamplerKind::kClock;  // and read their clocks and signal them
    return choice;
  }
  if (request == SamplerRequest::kAuto && own_fds::descriptors_scarce()) {
    choice.kind = SamplerKind::kTimer;  // perf_event takes a descriptor per thread
    choice.note = "warning: the descriptor limit (ulimit -n " +
                  std::to_string(own_fds::soft_limit()) +
                  ") has no room above it, so the profiler holds no descriptor: it samples with "
                  "per-thread CPU-time timers (--sampler timer) and opens the profile for each "
                  "write; raise the hard limit (ulimit -Hn) to sample with perf_event";
    choice.warn = true;
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
    choice.error += kWithoutPerf;
  }
  return choice;
}

}  // namespace coz
