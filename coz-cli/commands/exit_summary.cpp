// The two lines `coz run` ends with (see exit_summary.h).
#include "commands/exit_summary.h"

#include <cstdio>
#include <set>

namespace coz::cli {

std::string exit_summary(const std::string& profile, const analysis::Report& report,
                         size_t this_run) {
  std::set<std::string> lines;
  for (const analysis::Series& s : report.series) {
    lines.insert(s.line.name);
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
