// The end of a run: the final block of records (the run's time, each line's samples, a warning
// when load amplification met no arrival point), and what the user is told about the run.
// Threads: the thread that shuts the runtime down, once, after the profiler thread has stopped.
#pragma once

#include <cstdint>
#include <string>

#include "line/line_table.h"
#include "points/progress_points.h"
#include "record/profile_format.h"
#include "runtime/reporter.h"

namespace coz {

// What the run did, gathered from the runtime's parts at shut-down.
struct RunTotals {
  uint64_t run_ns = 0;           // since the runtime started
  uint64_t samples = 0;          // drained, in all
  uint64_t in_scope = 0;         // of those, attributed to a line in scope
  uint64_t lost = 0;             // dropped by the kernel: a full ring
  uint64_t threads = 0;          // sampled
  uint64_t unsampled = 0;        // could not be sampled
  std::string unsampled_reason;  // why the first could not
  uint64_t experiments = 0;      // finished
  uint64_t unwritten = 0;        // experiments not in the profile (a full disk)
  uint64_t paused_ns = 0;        // time threads spent paused for delays
  bool no_arrivals = false;  // load amplification was asked for but no arrival point was reached
  std::string output;        // the profile's path
  bool coordinated = false;  // a member of a run across programs (coz coordinate)
  std::string sampler;       // SamplerBackend::describe()
};

// The final records: appended once, after the last experiment. Each line's samples name this
// process (`pid`); a followed child (not `root`) writes only those.
// `resolution_ns`: a signalling engine's CPU time per signal (0: perf, or none measured);
// `sampler_cpu_ns`: the CPU time of the engine's own thread (0: it has none).
RecordBuilder final_records(uint64_t run_ns, const LineTable& lines, bool no_arrivals, bool root,
                            uint64_t resolution_ns, uint64_t sampler_cpu_ns);

// Tells the user about the run: errors and warnings always, the rest when verbose.
void report_run(const Reporter& reporter, const RunTotals& run, const ProgressPoints& points);

}  // namespace coz
