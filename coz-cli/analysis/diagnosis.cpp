// Explains an empty causal profile (see diagnosis.h).
#include "analysis/diagnosis.h"

#include <cstdio>
#include <string>

#include "config/run_config.h"

namespace coz::analysis {
namespace {

const std::string kFirstExperiment =
    std::to_string(kDefaultExperimentLengthNs / 1000000) + " ms at first, or --experiment-length";

}  // namespace

Diagnosis diagnose(const ProfileData& data, const Report& report) {
  if (!report.series.empty()) {
    return {};
  }
  if (data.runs().empty() && data.experiments().empty()) {
    size_t bad = 0;
    for (const InputFile& in : data.inputs()) {
      bad += in.errors.size();
    }
    if (bad > 0) {
      return {"not-a-profile", "no profile record could be read (" + std::to_string(bad) +
                                   " malformed lines): give a file written by coz run (or by Coz)"};
    }
    return {"empty", "the profile holds no runs: write one with coz run -o FILE --- PROGRAM"};
  }
  if (data.experiments().empty()) {
    bool ended = false;
    for (const Run& r : data.runs()) {
      ended = ended || r.has_runtime;
    }
    if (!ended) {
      return {"too-short",
              "no experiment finished, and the run did not end normally (no runtime record: was it "
              "killed?); let the program run to its end, on an input that takes longer than one "
              "experiment (" +
                  kFirstExperiment + "), or use coz run --end-to-end"};
    }
    if (data.sample_records() == 0 && report.runtime_ns >= 1e8) {  // long enough for 100 samples
      return {"no-debug-info",
              "no sample fell in a source line in scope: build the program with -g, and check "
              "--binary-scope and --source-scope"};
    }
    char ms[32];
    snprintf(ms, sizeof ms, "%.0f", report.runtime_ns / 1e6);
    return {"too-short", std::string("no experiment finished: the program ran ") + ms +
                             " ms, less than one experiment (" + kFirstExperiment +
                             "); run it on a longer "
                             "input, or use coz run --end-to-end"};
  }
  double visits = 0;
  for (const ProgressPointInfo& p : report.points) {
    visits += p.visits;
  }
  if (visits == 0) {
    return {"no-progress",
            "no progress point was ever visited: add COZ_PROGRESS where a unit of work completes "
            "(and rebuild), or pass --progress FILE:LINE to coz run"};
  }
  if (report.lines_tested == 0) {
    return {"load-only",
            "the profile holds load amplification alone (no line was tested): its result is "
            "throughput and latency against load; for a causal profile, run coz run without "
            "--fixed-speedup 0"};
  }
  if (report.dropped_few_speedups == 0) {
    return {
        "no-baseline",
        "no line has a 0% (baseline) experiment that reached a progress point, to compare with: "
        "run again without --fixed-speedup or --zero-speedup-share 0, or add a run with "
        "--fixed-speedup 0"};
  }
  char text[400];
  snprintf(
      text, sizeof text,
      "no line was measured at %zu or more speedups (the best has %zu): run the program longer "
      "or several times (coz run --runs N appends), use --end-to-end with --fixed-line and "
      "--fixed-speedup for one line, or lower --min-points",
      report.options.min_speedups, report.most_speedups);
  return {"few-speedups", text};
}

}  // namespace coz::analysis
