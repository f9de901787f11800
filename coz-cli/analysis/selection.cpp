// Keeping the part of a report the user asked for (see selection.h).
#include "analysis/selection.h"

#include <cstdlib>

namespace coz::analysis {
namespace {

bool level_matches(const LoadLevel& level, const std::string& wanted) {
  if (level.label() == wanted) {
    return true;
  }
  // A plain factor: "2" for the level labelled "2x".
  char* end = nullptr;
  double factor = strtod(wanted.c_str(), &end);
  return level.arrival_speedup_ns == 0 && !wanted.empty() && *end == '\0' && factor == level.target;
}

}  // namespace

bool select_series(Report* report, const std::string& point, const std::string& load,
                   SortOrder order, std::string* error) {
  if (!point.empty()) {
    bool known = false;
    std::string names;
    for (const ProgressPointInfo& p : report->points) {
      known = known || p.name == point;
      names += (names.empty() ? "" : ", ") + ("\"" + p.name + "\"");
    }
    if (!known) {
      *error = "no progress point \"" + point + "\" in the profile; it has " +
               (names.empty() ? std::string("none") : names);
      return false;
    }
  }
  if (!load.empty()) {
    bool known = false;
    std::string labels;
    for (const LoadLevel& l : report->levels) {
      known = known || level_matches(l, load);
      labels += (labels.empty() ? "" : ", ") + l.label();
    }
    if (!known) {
      *error = "no load level " + load + " in the profile; it has " + labels;
      return false;
    }
  }
  std::vector<Series> kept;
  for (Series& s : report->series) {
    if ((point.empty() || s.point == point) && (load.empty() || level_matches(s.level, load))) {
      kept.push_back(std::move(s));
    }
  }
  rank_in_groups(&kept, order);
  report->series = std::move(kept);
  std::vector<ScalabilityRow> rows;
  for (ScalabilityRow& row : report->scalability) {
    if ((point.empty() || row.point == point) && (load.empty() || level_matches(row.level, load))) {
      rows.push_back(std::move(row));
    }
  }
  report->scalability = std::move(rows);
  std::vector<DriftRow> drift;
  for (DriftRow& row : report->drift) {
    if ((point.empty() || row.point == point) && (load.empty() || level_matches(row.level, load))) {
      drift.push_back(std::move(row));
    }
  }
  report->drift = std::move(drift);
  return true;
}

}  // namespace coz::analysis
