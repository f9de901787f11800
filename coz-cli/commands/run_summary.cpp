// The two lines `coz run` ends with (see run_summary.h).
#include "commands/run_summary.h"

#include <cstdio>
#include <set>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "record/vocabulary.h"

namespace coz::cli {

std::string run_summary(const std::string& profile, uint64_t offset, uint64_t run_id) {
  analysis::ProfileData data;
  std::string error;
  if (!data.read(profile, &error)) {
    return "coz: the profile " + profile + " could not be read back: " + error + "\n";
  }
  // Experiments this run wrote: in the part of the file appended since `offset`, those marked
  // with this coz's run id (other coz processes may append to the same file meanwhile).
  size_t this_run = 0;
  read_profile_records(
      profile,
      [&](Record&& r) {
        this_run += r.kind == RecordKind::kExperiment && r.u64(vocab::key::kRun) == run_id;
      },
      [](ParseError&&) {}, nullptr, offset);
  analysis::AnalysisOptions options;
  options.bootstrap = 0;  // counts only
  analysis::Report report = analysis::analyse(data, options);
  std::set<std::string> lines;
  for (const analysis::Series& s : report.series) {
    lines.insert(s.line);
  }
  char first[512];
  snprintf(first, sizeof first,
           "coz: profile written to %s: %zu experiment%s this run, %zu in all\n", profile.c_str(),
           this_run, this_run == 1 ? "" : "s", report.experiments);
  std::string second;
  bool sweep_only = report.diagnosis.code == "load-only" || report.diagnosis.code == "few-speedups";
  if (sweep_only && !report.scalability.empty()) {
    // A load sweep: its result is the scalability table, not a causal profile.
    second = "coz: throughput at " + std::to_string(report.levels.size()) +
             " load levels in the profile; see coz report " + profile + "\n";
  } else if (!report.diagnosis.code.empty()) {
    second = "coz: warning: " + report.diagnosis.message + "\n";
  } else {
    second = "coz: " + std::to_string(lines.size()) + " line" + (lines.size() == 1 ? "" : "s") +
             " with usable data; see coz report " + profile + "\n";
  }
  return first + second;
}

}  // namespace coz::cli
