// Keeping the part of a report the user asked for (see selection.h).
#include "analysis/selection.h"

#include <algorithm>
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
  // Series, scalability rows and drift rows each name their point and level.
  auto keep_selected = [&](auto* rows) {
    rows->erase(std::remove_if(rows->begin(), rows->end(),
                               [&](const auto& row) {
                                 return !(point.empty() || row.point == point) ||
                                        !(load.empty() || level_matches(row.level, load));
                               }),
                rows->end());
  };
  keep_selected(&report->series);
  rank_in_groups(&report->series, order);
  keep_selected(&report->scalability);
  keep_selected(&report->drift);
  return true;
}

}  // namespace coz::analysis
