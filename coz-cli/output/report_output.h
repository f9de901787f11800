// Renders a causal-profile report: a terminal table, the versioned JSON document the viewer
// reads (schema in coz-cli/output/REPORT_JSON.md), or CSV with one row per curve point. Series
// arrive ranked and grouped by (progress point, load level).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/causal_profile.h"

namespace coz::output {

inline constexpr int kReportSchemaVersion = 1;

struct RenderContext {
  const analysis::Report& report;
  const analysis::ProfileData& data;
  std::string sort;  // the sort order's name, for the settings block
  size_t width = 0;  // the text table's width limit in columns (the terminal's), 0 for none
  // Text: a table per (progress point, load level) even when there are several; by default
  // several share one overview table of impacts.
  bool each_point = false;
};

std::string render_json(const RenderContext& ctx);
std::string render_csv(const RenderContext& ctx);
std::string render_text(const RenderContext& ctx);

// An estimate as the report shows it: "+17.2%", then " [+14.9, +19.3]" when it has an interval
// and `interval` asks for it.
std::string estimate_text(const analysis::Estimate& e, bool interval = true);

// Each series' rank within its (progress point, load level) group, in report order: 1, 2, ...
std::vector<size_t> ranks_in_groups(const analysis::Report& report);

// Each series' line as the report shows it: the shortest path suffix that tells its file apart
// from every other file in the report ("a/mod.rs:638", "a.c:12"; analysis/display_names.h).
std::unordered_map<std::string, std::string> display_lines(const analysis::Report& report);

}  // namespace coz::output
