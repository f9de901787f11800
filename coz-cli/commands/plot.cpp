// `coz plot` (see plot.h): analyses the profiles as `coz report --json` does and inlines the
// result, source snippets and the viewer into one HTML page.
#include "commands/plot.h"

#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/causal_profile.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_data.h"
#include "commands/report.h"
#include "commands/run.h"
#include "output/json_writer.h"
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
    "                      current directory)\n"
    "  --min-points N      the page starts by hiding lines with fewer than N distinct\n"
    "                      speedups (default 5; its control goes down to 2)\n"
    "  --bootstrap N, --seed N, --confidence C, --fdr Q   as for coz report\n"
    "  -h, --help          show this help\n";

constexpr int kContext = 4;  // source lines shown on each side of a profiled line

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
    std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? first.substr(0, dot) : first;
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
  for (const std::string& candidate : {dir + "/" COZ_BIN_TO_VIEWER, dir + "/../share/coz-amp/viewer"}) {
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

// JSON inside <script type="application/json">: no '<', so no "</script>" or "<!--" can end it.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Whether `file` may be read for a snippet: a regular file whose real path lies under `root`
// (itself a real path). A profile is untrusted input: without this, a profile naming
// /proc/self/environ or ~/.ssh/id_rsa would copy it into a page that gets shared.
bool readable_source(const std::string& file, const std::string& root) {
  char real[PATH_MAX];
  struct stat st;
  if (!realpath(file.c_str(), real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      st.st_size > (64 << 20)) {
    return false;
  }
  std::string path(real);
  for (const char* system : {"/proc/", "/sys/", "/dev/"}) {
    if (path.rfind(system, 0) == 0) {
      return false;
    }
  }
  return root == "/" || path.rfind(root + "/", 0) == 0;
}

// The lines around each profiled line, from the files the profile names: {"file": {"12": "..."}}.
// A file that is missing, outside `root`, not a regular file, or huge is skipped silently.
std::string source_snippets(const analysis::Report& report, const std::string& root_dir) {
  char real_root[PATH_MAX];
  std::string root = realpath(root_dir.c_str(), real_root) ? real_root : "";
  std::map<std::string, std::set<long>> wanted;
  for (const analysis::Series& s : report.series) {
    size_t colon = s.line.rfind(':');
    if (colon != std::string::npos) {
      long n = atol(s.line.c_str() + colon + 1);
      for (long k = n - kContext; k <= n + kContext; k++) {
        if (k > 0) {
          wanted[s.line.substr(0, colon)].insert(k);
        }
      }
    }
  }
  output::JsonWriter w;
  w.begin_object();
  for (const auto& [file, numbers] : wanted) {
    if (root.empty() || !readable_source(file, root)) {
      continue;
    }
    std::ifstream in(file);
    std::string text;
    long n = 0, last = *numbers.rbegin();
    w.begin_object(file);
    while (n < last && std::getline(in, text)) {
      if (numbers.count(++n)) {
        w.value(std::to_string(n), text);
      }
    }
    w.end_object();
  }
  w.end_object();
  return w.text();
}

// "</script" cannot occur in JavaScript outside a string or pattern, where "<\/" means the same.
void escape_script_end(std::string* js) {
  size_t at = 0;
  while ((at = js->find("</", at)) != std::string::npos) {
    if (strncasecmp(js->c_str() + at + 2, "script", 6) == 0) {
      js->replace(at, 2, "<\\/");
      at += 3;
    } else {
      at += 2;
    }
  }
}

bool replace(std::string* page, const std::string& marker, const std::string& with) {
  size_t at = page->find(marker);
  if (at == std::string::npos) {
    return false;
  }
  page->replace(at, marker.size(), with);
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

// The viewer page with everything inlined.
bool build_page(const std::string& dir, const std::string& report_json, const std::string& sources_json,
                size_t min_points, std::string* page, std::string* error) {
  std::string style, app, lib;
  if (!slurp(dir + "/index.html", page) || !slurp(dir + "/viewer.css", &style) || !slurp(dir + "/viewer.js", &app)) {
    *error = "the viewer in " + dir + " is incomplete; rebuild (cmake --build build) or reinstall";
    return false;
  }
  escape_script_end(&app);
  std::string n = nonce();
  std::string libs;
  for (const char* name : {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"}) {
    if (!slurp(dir + "/" + name, &lib)) {
      *error = std::string("the viewer's ") + name + " is missing from " + dir +
               ": run `npm ci` in viewer/ (scripts/deps.sh does), then rebuild";
      return false;
    }
    escape_script_end(&lib);
    libs += "<script nonce=\"" + n + "\">\n" + lib + "\n</script>\n";
  }
  bool ok = replace(page, "COZ_NONCE", n) && replace(page, "<!--coz:style-->", "<style>\n" + style + "</style>") &&
            replace(page, "<!--coz:data-->",
                    "<script type=\"application/json\" id=\"coz-report\">" + script_safe(report_json) +
                        "</script>\n<script type=\"application/json\" id=\"coz-sources\">" +
                        script_safe(sources_json) + "</script>\n<script type=\"application/json\" id=\"coz-view\">" +
                        "{\"min_points\": " + std::to_string(min_points) + "}</script>") &&
            replace(page, "<!--coz:libs-->", libs) &&
            replace(page, "<!--coz:app-->", "<script nonce=\"" + n + "\">\n" + app + "</script>");
  if (!ok) {
    *error = "the viewer's index.html in " + dir + " lacks its placeholders; reinstall";
  }
  return ok;
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
  std::string looked_in;
  std::string dir = viewer_dir(&looked_in);
  if (dir.empty()) {
    fprintf(stderr, "coz plot: error: cannot find the viewer (looked in %s); rebuild, reinstall, or set COZ_VIEWER_DIR\n",
            looked_in.c_str());
    return 2;
  }
  analysis::ProfileData data;
  if (!read_profiles(parsed.files, "coz plot", &data)) {
    return 2;
  }
  analysis::Report report = analysis::analyse(data, parsed.analysis);
  analysis::rank_in_groups(&report.series, analysis::SortOrder::kImpact);
  std::string json = output::render_json(output::RenderContext{report, data, "impact"});
  std::string page;
  std::string sources = parsed.source ? source_snippets(report, parsed.source_root) : "{}";
  if (!build_page(dir, json, sources, parsed.min_points, &page, &error)) {
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
  std::ofstream out(parsed.output, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) {
    fprintf(stderr, "coz plot: error: cannot write %s; pick another place with -o FILE\n", parsed.output.c_str());
    return 2;
  }
  printf("%s\n", parsed.output.c_str());
  if (parsed.open && !open_in_browser(parsed.output)) {
    fprintf(stderr, "coz plot: could not start a browser (xdg-open); open %s yourself\n", parsed.output.c_str());
  }
  return report.diagnosis.code.empty() ? 0 : 1;
}

}  // namespace coz::cli
