// `coz report` (see report.h).
#include "commands/report.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "analysis/causal_profile.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_data.h"
#include "analysis/selection.h"
#include "common/analysis_options.h"
#include "common/command_line.h"
#include "common/profile_input.h"
#include "common/progress_notice.h"
#include "config/run_config.h"
#include "output/report_output.h"
#include "output/terminal_text.h"

namespace coz::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> files;
  analysis::AnalysisOptions analysis;
  analysis::SortOrder sort = analysis::SortOrder::kImpact;
  std::string sort_name = "impact";
  std::string point;
  std::string load;
  bool each_point = false;
  enum class Format { kText, kJson, kCsv } format = Format::kText;
};

bool parse_sort(const std::string& v, ReportArgs* out, std::string* error) {
  struct Name {
    const char* name;
    const char* canonical;
    analysis::SortOrder order;
  };
  static const Name kNames[] = {{"impact", "impact", analysis::SortOrder::kImpact},
                                {"slope", "slope", analysis::SortOrder::kSlope},
                                {"max", "max", analysis::SortOrder::kMaxSpeedup},
                                {"max-speedup", "max", analysis::SortOrder::kMaxSpeedup},
                                {"name", "name", analysis::SortOrder::kName},
                                {"alphabetical", "name", analysis::SortOrder::kName}};
  for (const Name& n : kNames) {
    if (v == n.name) {
      out->sort = n.order;
      out->sort_name = n.canonical;
      return true;
    }
  }
  *error = "--sort takes impact, slope, max or name, not '" + v + "'";
  return false;
}

void setup(CLI::App* app, ReportArgs* out) {
  setup_app(app, "coz report [options] [profile.coz...]",
            "Prints the causal profile: for each line, how much the program would speed up if the "
            "line ran faster, best lines first. Reads this project's profiles and Coz's "
            "(tab-separated or JSON lines); several files, and runs appended to one file, merge. "
            "Default: profile.coz.",
            "Exit status: 0 when there is something to show, 1 when there is not (the reason is "
            "on stderr), 2 for a usage error or an unreadable file.");
  add_value_option(
      app, "--sort", "ORDER", "impact (default), slope, max (largest speedup), name", false,
      [out](const std::string& v, std::string* error) { return parse_sort(v, out, error); });
  add_value_option(app, "--point", "NAME", "only this progress point", false,
                   [out](const std::string& v, std::string*) {
                     out->point = v;
                     return true;
                   });
  add_value_option(app, "--load", "LEVEL", "only this load level (as shown: 2x, or +750us/arrival)",
                   false, [out](const std::string& v, std::string*) {
                     out->load = v;
                     return true;
                   });
  add_switch(app, "--each-point",
             "with several progress points or load levels, a full table for each instead of one "
             "overview of impacts",
             [out] { out->each_point = true; });
  add_switch(app, "--json", "the versioned JSON document the viewer reads",
             [out] { out->format = ReportArgs::Format::kJson; });
  add_switch(app, "--csv", "one row per curve point",
             [out] { out->format = ReportArgs::Format::kCsv; });
  add_switch(app, "--uncorrected", "no phase correction (eq. 5.8)",
             [out] { out->analysis.phase_correction = false; });
  add_analysis_options(app, &out->analysis, &out->analysis.min_speedups,
                       "leave out lines with fewer than N distinct speedups (default 5)");
}

// The width the text table should fit: $COLUMNS when set, else the terminal's when stdout is
// one, else no limit (a pipe or a file keeps every column).
size_t output_width() {
  if (const char* columns = getenv("COLUMNS")) {
    char* end = nullptr;
    long n = strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0) {
      return static_cast<size_t>(n);
    }
  }
  winsize ws = {};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 0;
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  CLI::App app("", "coz report");
  ReportArgs parsed;
  setup(&app, &parsed);
  if (int status = parse_or_exit(&app, args, &parsed.files); status >= 0) {
    return status;
  }
  if (parsed.files.empty()) {
    parsed.files.push_back(kDefaultProfile);
  }
  analysis::ProfileData data;
  if (!read_profiles(parsed.files, "coz report", &data)) {
    return kExitUsage;
  }

  analysis::AnalysisProgress progress;
  analysis::Report report;
  {
    ProgressNotice notice("coz report", &progress);
    report = analysis::analyse(data, parsed.analysis, &progress);
  }
  std::string error;
  if (!analysis::select_series(&report, parsed.point, parsed.load, parsed.sort, &error)) {
    return usage_error(app, error);
  }
  output::RenderContext ctx{report, data, parsed.sort_name, output_width(), parsed.each_point};
  std::string text = parsed.format == ReportArgs::Format::kJson  ? output::render_json(ctx)
                     : parsed.format == ReportArgs::Format::kCsv ? output::render_csv(ctx)
                                                                 : output::render_text(ctx);
  bool scalability = !report.scalability.empty();
  if (parsed.format != ReportArgs::Format::kText || !report.series.empty() || scalability) {
    // The JSON escapes its own strings; the table and the CSV keep only their line feeds.
    bool json = parsed.format == ReportArgs::Format::kJson;
    fputs((json ? text : output::terminal_safe_lines(text)).c_str(), stdout);
  }
  if (!report.diagnosis.code.empty()) {
    // A load sweep of 0% experiments has no causal profile but does have its scalability table.
    tell("coz report",
         std::string(analysis::diagnosis_heading(report)) + ": " + report.diagnosis.message);
    return scalability ? kExitOk : kExitNothingToShow;
  }
  if (report.series.empty()) {
    tell("coz report", "nothing to show for that progress point and load level");
    return kExitNothingToShow;
  }
  return kExitOk;
}

}  // namespace coz::cli
