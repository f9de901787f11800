// How a profile is going while `coz run` runs: what the live status line shows and what
// --until-confident stops on, read from the profile file the runtime appends to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/causal_profile.h"

namespace coz::cli {

struct RunProgress {
  bool readable = false;
  size_t experiments = 0;
  size_t lines_tested = 0;
  size_t lines_shown = 0;  // lines with enough data for the report (a baseline and min speedups)
  std::string top;  // the best line of the first progress point: "a.c:12 +17.2% [+14.9, +19.3]"
  // The best line of every progress point (and load level) has an impact interval above zero and
  // clear of the next line's interval: the ranking at the top will not change with more data.
  bool separated = false;
  // Why repeating the run can never show a causal profile (no progress point visited, no debug
  // information in scope, load amplification alone), in `coz report`'s words; else empty.
  std::string hopeless;
  // The latest run's sampler when it is not perf_event ("timer"), for the status line; else empty.
  std::string sampler;
};

// The profile's report with a quick bootstrap (200 replicates; this runs a few times a minute),
// ranked by impact.
analysis::Report quick_report(const analysis::ProfileData& data);
// Where the profile stands, from its quick report.
RunProgress progress_of(const analysis::Report& report);
// Reads and analyses `profile` (the live status line).
RunProgress read_progress(const std::string& profile);

// One reading of the profile after a run: its quick report, where it stands, and the experiments
// of this coz (`run_id`) in the records after the first `skip_records` (those it held before).
struct ProfileReading {
  bool readable = false;
  std::string error;
  analysis::Report report;
  RunProgress progress;
  size_t this_run = 0;
};
ProfileReading read_after_run(const std::string& profile, size_t skip_records, uint64_t run_id);
// The records in `profile` (0 when it cannot be read).
size_t count_records(const std::string& profile);

// Whole seconds as "42s" or "3m05s".
std::string format_seconds(int seconds);

// The status line's text: elapsed time, the run, experiments, lines, the top line.
std::string status_text(const RunProgress& p, double elapsed_s, size_t run, size_t runs);

}  // namespace coz::cli
