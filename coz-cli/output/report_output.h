// Renders a causal-profile report: a terminal table, the versioned JSON document the viewer
// reads (schema in coz-cli/output/REPORT_JSON.md), or CSV with one row per curve point. Series
// arrive ranked and grouped by (progress point, load level).
#pragma once

#include <string>
#include <vector>

#include "analysis/causal_profile.h"

namespace coz::output {

inline constexpr int kReportSchemaVersion = 1;

struct RenderContext {
  const analysis::Report& report;
  const analysis::ProfileData& data;
  std::string sort;  // the sort order's name, for the settings block
};

std::string render_json(const RenderContext& ctx);
std::string render_csv(const RenderContext& ctx);
std::string render_text(const RenderContext& ctx);

// Each series' rank within its (progress point, load level) group, in report order: 1, 2, ...
std::vector<size_t> ranks_in_groups(const analysis::Report& report);

// "a.c:12" for "/src/a.c:12" when no other shown line has that base name.
std::string short_line_name(const analysis::Report& report, const std::string& line);

}  // namespace coz::output
