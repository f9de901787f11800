// `coz plot` (see plot.h): analyses the profiles as `coz report --json` does and inlines the
// result, source snippets and the viewer into one HTML page.
#include "commands/plot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analysis/causal_profile.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_data.h"
#include "commands/source_snippets.h"
#include "common/analysis_options.h"
#include "common/command_line.h"
#include "common/install_paths.h"
#include "common/profile_input.h"
#include "common/progress_notice.h"
#include "config/run_config.h"
#include "output/html_page.h"
#include "output/report_output.h"

namespace coz::cli {
namespace {

const char* const kPlot = "coz plot";

int overwrite_error(const std::string& input) {
  return fail(kPlot, "the page would overwrite its input " + input + "; name the page with -o FILE",
              kExitUsage);
}

struct PlotArgs {
  std::vector<std::string> files;
  std::string output;
  bool serve = false;
  bool open = false;
  bool source = true;
  std::string source_root = ".";
  size_t min_points = 5;
  analysis::AnalysisOptions analysis;
};

void setup(CLI::App* app, PlotArgs* out) {
  setup_app(app, "coz plot [options] [profile.coz...]",
            "Writes the causal profile as one HTML page that opens from disk with no server and "
            "no network: a chart per line, with sorting, filters, load levels and source "
            "snippets. Default input: profile.coz.",
            "Exit status: 0 when the page was written (or served until interrupted), 1 when the "
            "profile has nothing to show (the page is still written and says why), 2 for a usage "
            "error, an unreadable profile or a missing viewer.");
  out->analysis = output::page_analysis_options();
  add_value_option(app, "-o,--output", "FILE",
                   "the page to write (default: the first profile with .html)", false,
                   [out](const std::string& v, std::string* error) {
                     if (v.empty()) {
                       *error = "-o needs a file name";
                       return false;
                     }
                     out->output = v;
                     return true;
                   });
  add_switch(app, "--serve", "serve the page on 127.0.0.1 (a free port) instead; prints the URL",
             [out] { out->serve = true; });
  add_switch(app, "--open", "also try to open it in a browser", [out] { out->open = true; });
  add_switch(app, "--no-source", "do not embed the source lines around each profiled line",
             [out] { out->source = false; });
  add_value_option(app, "--source-root", "DIR",
                   "embed source lines only from files under DIR (default: the current "
                   "directory); only source files (by extension) outside hidden directories, up "
                   "to 8 MiB, text; the page lists the rest",
                   false, [out](const std::string& v, std::string*) {
                     out->source_root = v;
                     return true;
                   });
  add_analysis_options(app, &out->analysis, &out->min_points,
                       "the page starts by hiding lines with fewer than N distinct speedups "
                       "(default 5; its control goes down to 2)");
}

// By default the page is the first profile's name with .html.
std::string default_output(const std::string& first) {
  size_t dot = first.rfind('.');
  size_t slash = first.rfind('/');
  return (dot != std::string::npos && (slash == std::string::npos || dot > slash)
              ? first.substr(0, dot)
              : first) +
         ".html";
}

// The page must never replace a profile it was made from (by default `x.html` plots to itself):
// the same file is the same device and inode, whatever the names.
bool overwrites_input(const std::string& output, const std::vector<std::string>& inputs,
                      std::string* which) {
  struct stat out;
  if (stat(output.c_str(), &out) != 0) {
    return false;  // a new file
  }
  for (const std::string& in : inputs) {
    struct stat st;
    if (stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
      *which = in;
      return true;
    }
  }
  return false;
}

}  // namespace

int plot_command(const std::vector<std::string>& args) {
  CLI::App app("", "coz plot");
  PlotArgs parsed;
  setup(&app, &parsed);
  if (int status = parse_or_exit(&app, args, &parsed.files); status >= 0) {
    return status;
  }
  if (parsed.files.empty()) {
    parsed.files.push_back(kDefaultProfile);
  }
  if (parsed.output.empty()) {
    parsed.output = default_output(parsed.files[0]);
  }
  std::string error;
  std::string input;
  if (!parsed.serve && overwrites_input(parsed.output, parsed.files, &input)) {
    return overwrite_error(input);
  }
  std::string dir = find_viewer(&error);
  if (dir.empty()) {
    return fail(kPlot, error, kExitUsage);
  }
  output::ViewerFiles viewer;
  if (!load_viewer(dir, &viewer, &error)) {
    return fail(kPlot, error, kExitUsage);
  }
  analysis::ProfileData data;
  if (!read_profiles(parsed.files, "coz plot", &data)) {
    return kExitUsage;
  }
  analysis::AnalysisProgress progress;
  analysis::Report report;
  {
    ProgressNotice notice("coz plot", &progress);
    report = analysis::analyse(data, parsed.analysis, &progress);
  }
  output::PageData page_data;
  analysis::rank_in_groups(&report.series, analysis::SortOrder::kImpact);
  page_data.report_json = output::page_report_json(report, data);
  page_data.sources_json = "{}";
  page_data.left_out_json = "[]";
  page_data.min_points = parsed.min_points;
  if (parsed.source) {
    Snippets snippets = source_snippets(report, disk_sources(parsed.source_root));
    page_data.sources_json = snippets.json;
    page_data.left_out_json = snippets.left_out_json();
    if (!snippets.left_out.empty()) {
      tell(kPlot, snippets.left_out_line());
    }
  }
  std::string page;
  if (!output::build_page(viewer, page_data, page_nonce(), &page, &error)) {
    return fail(kPlot, error, kExitUsage);
  }
  if (!report.diagnosis.code.empty()) {
    tell(kPlot, std::string(analysis::diagnosis_heading(report)) + ": " + report.diagnosis.message);
  }
  if (parsed.serve) {
    return serve_page(page, parsed.open);
  }
  // Checked again just before writing: the profiles were read in between.
  if (overwrites_input(parsed.output, parsed.files, &input)) {
    return overwrite_error(input);
  }
  std::ofstream out(parsed.output, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) {
    return fail(kPlot, "cannot write " + parsed.output + "; pick another place with -o FILE",
                kExitUsage);
  }
  printf("%s\n", parsed.output.c_str());
  if (parsed.open && !open_in_browser(parsed.output)) {
    tell(kPlot, "could not start a browser (xdg-open); open " + parsed.output + " yourself");
  }
  return report.diagnosis.code.empty() ? 0 : 1;
}

}  // namespace coz::cli
