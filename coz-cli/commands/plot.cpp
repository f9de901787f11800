// `coz plot` (see plot.h): analyses the profiles as `coz report --json` does and inlines the
// result, source snippets and the viewer into one HTML page.
#include "commands/plot.h"

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analysis/causal_profile.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_data.h"
#include "commands/report.h"
#include "commands/run.h"
#include "commands/source_snippets.h"
#include "output/html_page.h"
#include "output/report_output.h"

#ifndef COZ_BIN_TO_VIEWER
#define COZ_BIN_TO_VIEWER "../share/coz-amp/viewer"
#endif

namespace coz::cli {
namespace {

const char* const kUsage =
    "usage: coz plot [options] [profile.coz...]\n"
    "\n"
    "Writes the causal profile as one HTML page that opens from disk with no server and no\n"
    "network: a chart per line, with sorting, filters, load levels and source snippets.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the page to write (default: the first profile with .html)\n"
    "  --serve             serve the page on 127.0.0.1 (a free port) instead; prints the URL\n"
    "  --open              also try to open it in a browser\n"
    "  --no-source         do not embed the source lines around each profiled line\n"
    "  --source-root DIR   embed source lines only from files under DIR (default: the\n"
    "                      current directory); only source files (by extension) outside\n"
    "                      hidden directories, up to 8 MiB, text; the page lists the rest\n"
    "  --min-points N      the page starts by hiding lines with fewer than N distinct\n"
    "                      speedups (default 5; its control goes down to 2)\n"
    "  --bootstrap N, --seed N, --confidence C, --fdr Q   as for coz report\n"
    "  -h, --help          show this help\n";

struct PlotArgs {
  std::vector<std::string> files;
  std::string output;
  bool serve = false;
  bool open = false;
  bool source = true;
  std::string source_root = ".";
  size_t min_points = 5;
  bool help = false;
  analysis::AnalysisOptions analysis;
};

bool parse_args(const std::vector<std::string>& args, PlotArgs* out, std::string* error) {
  out->analysis.min_speedups = 2;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    OptionResult shared = parse_shared_option(args, &i, &out->analysis, &out->min_points, error);
    if (shared == OptionResult::kBad) {
      return false;
    }
    if (shared == OptionResult::kHandled) {
      continue;
    }
    if (a == "-h" || a == "--help") {
      out->help = true;
    } else if (a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) {
        *error = a + " needs a file name";
        return false;
      }
      out->output = args[++i];
    } else if (a == "--serve") {
      out->serve = true;
    } else if (a == "--open") {
      out->open = true;
    } else if (a == "--no-source") {
      out->source = false;
    } else if (a == "--source-root") {
      if (i + 1 >= args.size()) {
        *error = a + " needs a directory";
        return false;
      }
      out->source_root = args[++i];
    } else if (a.size() > 1 && a[0] == '-') {
      *error = "unknown option '" + a + "'; see coz plot --help";
      return false;
    } else {
      out->files.push_back(a);
    }
  }
  if (out->files.empty()) {
    out->files.push_back("profile.coz");
  }
  if (out->output.empty()) {
    const std::string& first = out->files[0];
    size_t dot = first.rfind('.');
    size_t slash = first.rfind('/');
    std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash)
                           ? first.substr(0, dot)
                           : first;
    out->output = stem + ".html";
  }
  return true;
}

std::string viewer_dir(std::string* looked_in) {
  if (const char* forced = getenv("COZ_VIEWER_DIR")) {
    *looked_in = forced;
    return forced;
  }
  std::string dir = executable_dir();
  if (dir.empty()) {
    return "";
  }
  for (const std::string& candidate :
       {dir + "/" COZ_BIN_TO_VIEWER, dir + "/../share/coz-amp/viewer"}) {
    *looked_in += (looked_in->empty() ? "" : ", ") + candidate;
    if (access((candidate + "/index.html").c_str(), R_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

bool slurp(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// The installed viewer's files.
bool load_viewer(const std::string& dir, output::ViewerFiles* viewer, std::string* error) {
  if (!slurp(dir + "/index.html", &viewer->index_html) ||
      !slurp(dir + "/viewer.css", &viewer->style) || !slurp(dir + "/viewer.js", &viewer->app)) {
    *error = "the viewer in " + dir + " is incomplete; rebuild (cmake --build build) or reinstall";
    return false;
  }
  for (const char* name : {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"}) {
    viewer->libs.emplace_back();
    if (!slurp(dir + "/" + name, &viewer->libs.back())) {
      *error = std::string("the viewer's ") + name + " is missing from " + dir +
               ": run `npm ci` in viewer/ (scripts/deps.sh does), then rebuild";
      return false;
    }
  }
  return true;
}

std::string nonce() {
  unsigned char bytes[16];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    for (unsigned char& b : bytes) {
      b = static_cast<unsigned char>(rand());
    }
  }
  std::string out;
  char hex[3];
  for (unsigned char b : bytes) {
    snprintf(hex, sizeof hex, "%02x", b);
    out += hex;
  }
  return out;
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
  PlotArgs parsed;
  std::string error;
  if (!parse_args(args, &parsed, &error)) {
    fprintf(stderr, "coz plot: error: %s\n", error.c_str());
    return 2;
  }
  if (parsed.help) {
    fputs(kUsage, stdout);
    return 0;
  }
  std::string input;
  if (!parsed.serve && overwrites_input(parsed.output, parsed.files, &input)) {
    fprintf(stderr,
            "coz plot: error: the page would overwrite its input %s; name the page with -o FILE\n",
            input.c_str());
    return 2;
  }
  std::string looked_in;
  std::string dir = viewer_dir(&looked_in);
  if (dir.empty()) {
    fprintf(stderr,
            "coz plot: error: cannot find the viewer (looked in %s); rebuild, reinstall, or set "
            "COZ_VIEWER_DIR\n",
            looked_in.c_str());
    return 2;
  }
  output::ViewerFiles viewer;
  if (!load_viewer(dir, &viewer, &error)) {
    fprintf(stderr, "coz plot: error: %s\n", error.c_str());
    return 2;
  }
  analysis::ProfileData data;
  if (!read_profiles(parsed.files, "coz plot", &data)) {
    return 2;
  }
  analysis::Report report = analysis::analyse(data, parsed.analysis);
  analysis::rank_in_groups(&report.series, analysis::SortOrder::kImpact);
  output::PageData page_data;
  page_data.report_json = output::render_json(output::RenderContext{report, data, "impact"});
  page_data.sources_json = "{}";
  page_data.left_out_json = "[]";
  page_data.min_points = parsed.min_points;
  if (parsed.source) {
    Snippets snippets = source_snippets(report, disk_sources(parsed.source_root));
    page_data.sources_json = snippets.json;
    page_data.left_out_json = snippets.left_out_json();
    if (!snippets.left_out.empty()) {
      fprintf(stderr, "coz plot: %s\n", snippets.left_out_line().c_str());
    }
  }
  std::string page;
  if (!output::build_page(viewer, page_data, nonce(), &page, &error)) {
    fprintf(stderr, "coz plot: error: %s\n", error.c_str());
    return 2;
  }
  if (!report.diagnosis.code.empty()) {
    fprintf(stderr, "coz plot: %s: %s\n", analysis::diagnosis_heading(report),
            report.diagnosis.message.c_str());
  }
  if (parsed.serve) {
    return serve_page(page, parsed.open);
  }
  // Checked again just before writing: the profiles were read in between.
  if (overwrites_input(parsed.output, parsed.files, &input)) {
    fprintf(stderr,
            "coz plot: error: the page would overwrite its input %s; name the page with -o FILE\n",
            input.c_str());
    return 2;
  }
  std::ofstream out(parsed.output, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) {
    fprintf(stderr, "coz plot: error: cannot write %s; pick another place with -o FILE\n",
            parsed.output.c_str());
    return 2;
  }
  printf("%s\n", parsed.output.c_str());
  if (parsed.open && !open_in_browser(parsed.output)) {
    fprintf(stderr, "coz plot: could not start a browser (xdg-open); open %s yourself\n",
            parsed.output.c_str());
  }
  return report.diagnosis.code.empty() ? 0 : 1;
}

}  // namespace coz::cli
