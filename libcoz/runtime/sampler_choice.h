// Which sampler this process runs (RunConfig::sampler): perf_event where the kernel allows it,
// else per-thread CPU-time timers, or the one the user named. The root tests perf_event once and
// writes its choice into the run (SharedRun::sampler); a follower asked for auto takes the root's
// without testing again, so every process of a run samples the same way.
// Threads: once, at start-up.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "config/run_config.h"
#include "sample/sampler.h"

namespace coz {

struct SamplerChoice {
  SamplerKind kind = SamplerKind::kPerf;
  // Why the timer runs where perf_event was refused, for --verbose; empty otherwise.
  std::string note;
};

// `run_choice`: the run's shared choice (SamplerKind + 1, 0 while unset); the root sets it.
SamplerChoice choose_sampler(SamplerRequest request, std::atomic<int32_t>& run_choice, bool root);

// The backend of `kind`.
std::unique_ptr<SamplerBackend> make_sampler(SamplerKind kind, const SamplerSettings& settings);

// The timer sampler's measured CPU time per signal (0 for perf, or before the first signal).
uint64_t measured_resolution_ns(const SamplerBackend& backend);

// The sampler as the startup record, --verbose and the summary name it: "perf", or "timer" with
// the measured CPU time per signal once known ("timer, 4 ms resolution").
std::string describe_sampler(const SamplerBackend& backend, uint64_t period_ns);

}  // namespace coz
