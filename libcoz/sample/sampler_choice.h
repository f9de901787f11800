// Which engine samples (RunConfig::sampler), decided in one place for `coz run`'s preflight and
// the runtime alike: perf_event where the kernel allows it, else per-thread CPU-time timers, or
// the one the user named (the sampling thread, clock, only so). Each engine answers for its own
// availability (perf: a test event). Threads: at start-up only.
#pragma once

#include <memory>
#include <string>

#include "config/run_config.h"
#include "sample/sampler.h"

namespace coz {

struct SamplerChoice {
  SamplerKind kind = SamplerKind::kPerf;
  // Why the timer runs where perf_event was refused, for --verbose; empty otherwise.
  std::string note;
  // The note is a warning, said without --verbose (descriptors are scarce: own_fds.h).
  bool warn = false;
  // Why the chosen engine cannot sample here, with what to do (perf asked for and refused, or
  // failing for want of a resource); empty when it can. The runtime opens it anyway and says why
  // where it fails; `coz run` stops before starting the program.
  std::string error;
};

// What a refusal of perf_event adds to its error: the engine that needs no permission.
inline constexpr const char* kWithoutPerf = "; or sample without perf_event: --sampler timer";

// The engine for `request`, its availability tested once here.
SamplerChoice choose_sampler(SamplerRequest request);

// The engine of `kind`.
std::unique_ptr<SamplerBackend> make_sampler(SamplerKind kind, const SamplerSettings& settings);

}  // namespace coz
