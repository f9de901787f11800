// How a profile is going (see run_progress.h).
#include "commands/run_progress.h"

#include <cstdio>
#include <set>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "output/report_output.h"
#include "output/terminal_text.h"
#include "record/vocabulary.h"

namespace coz::cli {

analysis::Report quick_report(const analysis::ProfileData& data) {
  analysis::AnalysisOptions options;
  options.bootstrap = 200;  // enough for a status; `coz report` uses 1000
  analysis::Report report = analysis::analyse(data, options);
  analysis::rank_in_groups(&report.series, analysis::SortOrder::kImpact);
  return report;
}

namespace {
// The last run's engine where it is not perf_event's (the status line names it), else empty.
std::string sampler_of(const analysis::ProfileData& data) {
  std::string name = data.runs().empty() ? "" : data.runs().back().sampler;
  return name == "timer" || name == "clock" ? name : "";
}
}  // namespace

RunProgress read_progress(const std::string& profile) {
  analysis::ProfileData data;
  std::string error;
  if (!data.read(profile, &error)) {
    return {};
  }
  RunProgress p = progress_of(quick_report(data));
  p.sampler = sampler_of(data);
  return p;
}

ProfileReading read_after_run(const std::string& profile, size_t skip_records, uint64_t run_id) {
  ProfileReading reading;
  analysis::ProfileData data;
  size_t index = 0;
  reading.readable = data.read(profile, &reading.error, [&](const Record& r) {
    reading.this_run += index++ >= skip_records && r.kind == RecordKind::kExperiment &&
                        r.u64(vocab::key::kRun) == run_id;
  });
  if (reading.readable) {
    reading.report = quick_report(data);
    reading.progress = progress_of(reading.report);
    reading.progress.sampler = sampler_of(data);
  }
  return reading;
}

size_t count_records(const std::string& profile) {
  size_t n = 0;
  read_profile_records(
      profile, [&](Record&&) { n++; }, [](ParseError&&) {}, nullptr);
  return n;
}

RunProgress progress_of(const analysis::Report& report) {
  RunProgress p;
  p.readable = true;
  p.experiments = report.experiments;
  p.lines_tested = report.lines_tested;
  std::set<std::string> shown;
  for (const analysis::Series& s : report.series) {
    shown.insert(s.line.name);
  }
  p.lines_shown = shown.size();
  const std::string& why = report.diagnosis.code;
  if (why == "no-progress" || why == "no-debug-info" || why == "load-only") {
    p.hopeless = report.diagnosis.message;
  }
  if (report.series.empty()) {
    return p;
  }
  std::vector<size_t> ranks = output::ranks_in_groups(report);
  std::unordered_map<std::string, std::string> names = output::display_lines(report);
  const analysis::Series& best = report.series[0];
  p.top =
      output::terminal_safe(names.at(best.line.name)) + " " + output::estimate_text(best.impact);
  p.separated = true;
  for (size_t first = 0; first < report.series.size();) {
    const analysis::Series& top = report.series[first];
    bool clear = top.impact.has_interval && top.impact.low > 0;
    size_t end = first + 1;
    for (; end < report.series.size() && ranks[end] != 1; end++) {
      const analysis::Series& other = report.series[end];
      if (end == first + 1 && other.impact.has_interval) {
        clear = clear && top.impact.low > other.impact.high;
      }
    }
    p.separated = p.separated && clear;
    first = end;
  }
  return p;
}

std::string format_seconds(int seconds) {
  char buf[32];
  if (seconds >= 60) {
    snprintf(buf, sizeof buf, "%dm%02ds", seconds / 60, seconds % 60);
  } else {
    snprintf(buf, sizeof buf, "%ds", seconds);
  }
  return buf;
}

std::string status_text(const RunProgress& p, double elapsed_s, size_t run, size_t runs) {
  char buf[256];
  std::string text = "coz: " + format_seconds(static_cast<int>(elapsed_s));
  if (runs != 1) {
    snprintf(buf, sizeof buf, runs ? " | run %zu of %zu" : " | run %zu", run, runs);
    text += buf;
  }
  snprintf(buf, sizeof buf, " | %zu experiment%s | %zu line%s tested, %zu with enough data",
           p.experiments, p.experiments == 1 ? "" : "s", p.lines_tested,
           p.lines_tested == 1 ? "" : "s", p.lines_shown);
  text += buf;
  if (!p.sampler.empty()) {
    text += " | " + p.sampler + " sampler";
  }
  if (!p.top.empty()) {
    text += " | top: " + p.top;
  }
  return text;
}

}  // namespace coz::cli
