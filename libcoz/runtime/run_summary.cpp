// The run's final records and summary (see run_summary.h).
#include "runtime/run_summary.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>

#include "record/vocabulary.h"

namespace coz {
namespace {

constexpr const char* kNoArrivalWarning =
    "load amplification was asked for but the program never reached an arrival point, so no "
    "load was added; add COZ_ARRIVAL (or COZ_BEGIN) where a request arrives";

}  // namespace

RecordBuilder final_records(uint64_t run_ns, const LineTable& lines, bool no_arrivals, bool root,
                            uint64_t resolution_ns, uint64_t sampler_cpu_ns) {
  RecordBuilder block;
  if (root) {
    block.begin(vocab::kRuntime).field(vocab::key::kTime, run_ns);
    if (resolution_ns != 0) {
      block.field(vocab::key::kSamplerResolution, resolution_ns);
    }
    if (sampler_cpu_ns != 0) {
      block.field(vocab::key::kSamplerCpu, sampler_cpu_ns);
    }
  }
  uint64_t pid = static_cast<uint64_t>(getpid());
  lines.for_each([&block, pid](const SourceLine& line) {
    uint64_t n = line.samples.load(std::memory_order_relaxed);
    uint64_t blocked = line.blocked.load(std::memory_order_relaxed);
    if (n > 0 || blocked > 0) {
      block.begin(vocab::kSamples)
          .field(vocab::key::kLocation, line.name())
          .field(vocab::key::kCount, n)
          .field(vocab::key::kPid, pid);
      if (blocked > 0) {
        block.field(vocab::key::kBlocked, blocked);  // absent, older readers see no change
      }
    }
  });
  if (no_arrivals && root) {
    block.begin(vocab::kWarning).field(vocab::key::kMessage, kNoArrivalWarning);
  }
  return block;
}

void report_run(const Reporter& reporter, const RunTotals& run, const ProgressPoints& points) {
  if (run.unwritten != 0) {
    reporter.say("error: " + std::to_string(run.unwritten) + " of " +
                     std::to_string(run.experiments) + " experiments could not be written to " +
                     run.output +
                     "; free space there (or choose another file with -o) and run again",
                 true);
  }
  char line[320];
  snprintf(line, sizeof line,
           "%" PRIu64 " samples (%" PRIu64 " in scope, %" PRIu64 " lost) from %" PRIu64
           " threads (sampler: %s) in %s; %" PRIu64 " experiments, %s of delays; profile: %s",
           run.samples, run.in_scope, run.lost, run.threads, run.sampler.c_str(),
           Reporter::ms(run.run_ns).c_str(), run.experiments, Reporter::ms(run.paused_ns).c_str(),
           run.output.c_str());
  reporter.say(line, false);
  if (run.unsampled != 0) {
    reporter.say(
        "warning: " + std::to_string(run.unsampled) + " of " +
            std::to_string(run.unsampled + run.threads) +
            " threads were not sampled, so the profile misses their work: " + run.unsampled_reason,
        true);
  }
  uint64_t visits = 0;
  points.for_each([&visits](const ProgressPoint& p) {
    visits += p.read(p.throughput()) + p.read(p.begin()) + p.read(p.end());
  });
  if (run.no_arrivals) {
    reporter.say(std::string("warning: ") + kNoArrivalWarning, true);
  }
  if (visits == 0 && !run.coordinated) {  // another member may have the points
    reporter.say(
        "warning: no progress point was visited, so no speedup can be measured; add "
        "COZ_PROGRESS (include/coz.h) where a unit of work completes",
        true);
  }
  points.for_each([&reporter](const ProgressPoint& p) {
    if (p.is_latency) {
      reporter.say("latency point " + p.name + ": " + std::to_string(p.read(p.begin())) +
                       " begins, " + std::to_string(p.read(p.end())) + " ends",
                   false);
    } else {
      reporter.say(
          "progress point " + p.name + ": " + std::to_string(p.read(p.throughput())) + " visits",
          false);
    }
  });
}

}  // namespace coz
