// The profile's vocabulary: every record type and key that `profile.coz` uses, named once. The
// runtime writes with these names and the CLI reads with them; no other file spells a record
// type or key.
//
// Other writers spell some names differently. When reading, each is taken for ours:
// - Coz 0.1 called a throughput point `progress-point`.
// - Coz's JSON-lines profiles spell keys and types with underscores (`selected_samples`), where
//   the tab-separated format has hyphens (`selected-samples`).
//
// Thread safety: constants and pure functions only.
#pragma once

#include <string_view>

namespace coz::vocab {

// Record types.
inline constexpr std::string_view kStartup = "startup";
inline constexpr std::string_view kExperiment = "experiment";
inline constexpr std::string_view kThroughputPoint = "throughput-point";
inline constexpr std::string_view kLatencyPoint = "latency-point";
inline constexpr std::string_view kArrivalPoint = "arrival-point";
inline constexpr std::string_view kSamples = "samples";
inline constexpr std::string_view kRuntime = "runtime";
inline constexpr std::string_view kWarning = "warning";
// Written by each child process the runtime follows (forked or exec'd) as it starts: the child
// belongs to the run its root's startup record began, and begins no run of its own.
inline constexpr std::string_view kProcess = "process";
// `coz compare`'s counts file (runtime/count_run.h), never a profile: each process of a run writes
// one as it exits, with pid, parent, duration (ns it lived), layout and program, followed by its
// throughput-point (name, delta) and latency-point (name, arrivals, departures, in-flight-ns: its
// requests in flight integrated over the process's life) records.
inline constexpr std::string_view kCounts = "counts";
// Written by some Coz versions at exit; it carries nothing the analysis uses.
inline constexpr std::string_view kCozShutdown = "shutdown";

// Keys, by the record that carries them.
namespace key {
// startup
inline constexpr std::string_view kTime = "time";  // also runtime
inline constexpr std::string_view kFormat = "format";
inline constexpr std::string_view kPid = "pid";
inline constexpr std::string_view kSamplingPeriod = "sampling-period";
inline constexpr std::string_view kProgram = "program";
// How blocked time was measured ("calls": timed blocking libc calls; "off": not measured).
inline constexpr std::string_view kOffCpu = "off-cpu";
// How threads were sampled: "perf" (perf_event), "timer" (per-thread CPU-time timers) or "clock"
// (a sampling thread that reads threads' CPU clocks). Absent in older profiles: perf. startup and
// process.
inline constexpr std::string_view kSampler = "sampler";
// runtime: the timer sampler's measured resolution, thread CPU time per signal (ns): the sampling
// period, or the kernel's tick when that is longer.
inline constexpr std::string_view kSamplerResolution = "sampler-resolution";
// runtime: CPU time of the sampling engine's own thread in the root process (ns; clock engine).
inline constexpr std::string_view kSamplerCpu = "sampler-cpu";
// startup and process: the parent's pid. process also carries time, pid, program and off-cpu.
inline constexpr std::string_view kParent = "parent";
// The machine a process ran on, in a run across hosts (`coz coordinate`): on process and samples
// records, so processes of one pid on two hosts stay apart.
inline constexpr std::string_view kHost = "host";
// experiment
inline constexpr std::string_view kSelected = "selected";
inline constexpr std::string_view kSpeedup = "speedup";
inline constexpr std::string_view kDuration = "duration";
inline constexpr std::string_view kSelectedSamples = "selected-samples";
inline constexpr std::string_view kElapsed = "elapsed";
inline constexpr std::string_view kDelays = "delays";
inline constexpr std::string_view kDelaySize = "delay-size";
inline constexpr std::string_view kInserted = "inserted";
// Of `inserted`, what the threads that made the progress still owed at the end (not taken off
// `duration`; docs/experiments.md): a large share marks a saturated experiment.
inline constexpr std::string_view kOwed = "owed";
inline constexpr std::string_view kStart = "start";
inline constexpr std::string_view kRun = "run";
inline constexpr std::string_view kArrivalSpeedup = "arrival-speedup";
inline constexpr std::string_view kLoadTarget = "load-target";
inline constexpr std::string_view kArrivalSpeedupTotal = "arrival-speedup-total";
inline constexpr std::string_view kLoad = "load";
// throughput-point, latency-point, arrival-point
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kDelta = "delta";
inline constexpr std::string_view kArrivals = "arrivals";
inline constexpr std::string_view kDepartures = "departures";
inline constexpr std::string_view kDifference = "difference";
inline constexpr std::string_view kInFlightNs = "in-flight-ns";
// samples
inline constexpr std::string_view kLocation = "location";
inline constexpr std::string_view kCount = "count";
// Blocked samples: one per sampling period the thread spent waiting in a blocking call made on the
// line (off the CPU), beside `count`, its samples while running. Readers that do not know the key
// (Coz 0.2, this project before it) ignore it and see the running samples alone.
inline constexpr std::string_view kBlocked = "blocked";
// samples also carry `pid` (see startup): the process that took them. Each process of a run writes
// its own samples records as it exits, so records for one line add up. Without it (older
// profiles), they are the root process's.
// warning
inline constexpr std::string_view kMessage = "message";
// counts: the run's layout seed (layout/layout_shift.h; 0: not moved)
inline constexpr std::string_view kLayout = "layout";
}  // namespace key

// The name this profile uses for `type` or `key` as another writer spelled it (see above); any
// other name is returned as it is. The result views static storage or `name` itself.
std::string_view canonical_type(std::string_view type);
std::string_view canonical_key(std::string_view key);

}  // namespace coz::vocab
