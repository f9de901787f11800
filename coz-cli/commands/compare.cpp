// `coz compare` (see compare.h): the options, the schedule of runs (layouts drawn from a seed,
// both programs at each, in random order) and the answer.
#include "commands/compare.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "analysis/comparison.h"
#include "analysis/statistics.h"
#include "base/platform.h"
#include "commands/compare_launch.h"
#include "commands/compare_prediction.h"
#include "commands/preflight.h"
#include "commands/preload_path.h"
#include "commands/signal_relay.h"
#include "common/command_line.h"
#include "common/install_paths.h"
#include "config/file_line.h"
#include "output/compare_text.h"
#include "output/html_page.h"

namespace coz::cli {
namespace {

const char* const kWho = "coz compare";
constexpr int kExitStopped = 130;  // as a shell reports a command Ctrl-C ended

struct CompareArgs {
  size_t layouts = 10;
  size_t repeats = 2;
  size_t max_layouts = 100;
  bool until_confident = false;
  analysis::CompareOptions stats{0.99, 0.01};
  uint64_t seed = 0;  // 0: drawn
  bool fixed_layout = false;
  bool show_output = false;
  bool json = false;
  std::string html;  // --html: the page's path
  bool quiet = false;
  PredictionRequest prediction;
  std::vector<std::string> old_command;
  std::vector<std::string> new_command;
};

bool parse_count(const std::string& flag, const std::string& v, size_t low, size_t* out,
                 std::string* error) {
  char* end = nullptr;
  unsigned long long n = strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || n < low || n > 100000) {
    *error =
        flag + " takes a whole number from " + std::to_string(low) + " to 100000, not '" + v + "'";
    return false;
  }
  *out = static_cast<size_t>(n);
  return true;
}

// "1%", "1" (percent) or "0.5%".
bool parse_percent(const std::string& flag, const std::string& v, double low, double high,
                   double* out, std::string* error) {
  std::string text = !v.empty() && v.back() == '%' ? v.substr(0, v.size() - 1) : v;
  char* end = nullptr;
  double p = strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(p > low && p < high)) {
    *error = flag + " takes a percentage above " + std::to_string(static_cast<int>(low)) +
             " and below " + std::to_string(static_cast<int>(high)) + ", not '" + v + "'";
    return false;
  }
  *out = p / 100;
  return true;
}

void setup(CLI::App* app, CompareArgs* a) {
  setup_app(
      app, "coz compare [options] --- OLD [args...] --- NEW [args...]",
      "Runs an old and a new build of a program, interleaved in random order, each run at a "
      "layout of its memory drawn afresh (the stack, heap, memory mappings, thread stacks and the "
      "environment moved by a random number of bytes), and says how much faster the new one is "
      "per progress point and in wall-clock time, with intervals and a test, and how much of the "
      "variation the layout makes by itself. The runtime only counts progress points: no "
      "sampling, no experiments, no delays. With --profile and --line, checks the speedup "
      "against the one the causal profile predicted for the line that changed.",
      "Exit status: 0 once compared (whatever the answer), 1 when a run failed or the programs "
      "cannot be run, 2 for a usage error, 130 when stopped (Ctrl-C) before the answer. The "
      "programs' output is discarded unless --show-output; their standard input is /dev/null.");
  add_value_option(app, "--layouts", "N", "layouts to run both programs at (default 10)", false,
                   [a](const std::string& v, std::string* e) {
                     return parse_count("--layouts", v, 2, &a->layouts, e);
                   });
  add_value_option(app, "--repeats", "N",
                   "runs of each program at each layout (default 2; 1 does not split the "
                   "variation into layout and noise)",
                   false, [a](const std::string& v, std::string* e) {
                     return parse_count("--repeats", v, 1, &a->repeats, e);
                   });
  add_switch(app, "--until-confident",
             "add layouts until every interval is within --precision (up to --max-layouts)",
             [a] { a->until_confident = true; });
  add_value_option(app, "--precision", "P", "the interval's half-width aimed at (default 1%)",
                   false, [a](const std::string& v, std::string* e) {
                     return parse_percent("--precision", v, 0, 100, &a->stats.precision, e);
                   });
  add_value_option(app, "--max-layouts", "N", "with --until-confident (default 100)", false,
                   [a](const std::string& v, std::string* e) {
                     return parse_count("--max-layouts", v, 2, &a->max_layouts, e);
                   });
  add_value_option(app, "--confidence", "C", "of every interval (default 99%)", false,
                   [a](const std::string& v, std::string* e) {
                     return parse_percent("--confidence", v, 50, 100, &a->stats.confidence, e);
                   });
  add_value_option(app, "--seed", "N",
                   "draw the layouts and the order from N (default: random; the answer names it)",
                   false, [a](const std::string& v, std::string* e) {
                     char* end = nullptr;
                     errno = 0;
                     unsigned long long n = strtoull(v.c_str(), &end, 10);
                     if (v.empty() || v[0] == '-' || *end != '\0' || errno != 0 || n == 0) {
                       *e = "--seed takes a whole number from 1 to 2^64 - 1, not '" + v + "'";
                       return false;
                     }
                     a->seed = n;
                     return true;
                   });
  add_switch(app, "--fixed-layout",
             "run every run at one layout, as a plain before-and-after timing does",
             [a] { a->fixed_layout = true; });
  add_switch(app, "--show-output", "let the programs' output through",
             [a] { a->show_output = true; });
  add_switch(app, "--json", "print the answer as JSON", [a] { a->json = true; });
  add_value_option(app, "--html", "FILE",
                   "also write the answer as a page that opens offline: both programs' runs, "
                   "and the prediction on the line's curve",
                   false, [a](const std::string& v, std::string*) {
                     a->html = v;
                     return true;
                   });
  add_switch(app, "-q,--quiet", "no line per layout on stderr", [a] { a->quiet = true; });
  add_value_option(app, "--profile", "FILE", "a causal profile of the old build, to check against",
                   false, [a](const std::string& v, std::string*) {
                     a->prediction.profile = v;
                     return true;
                   });
  auto line_option = [](std::string* where, const char* flag) {
    return [where, flag](const std::string& v, std::string* e) {
      if (!parse_file_line(v)) {
        *e = std::string(flag) + " " + v + " " + kNotFileLine;
        return false;
      }
      *where = v;
      return true;
    };
  };
  add_value_option(app, "--line", "FILE:LINE", "with --profile: the line the new build sped up",
                   false, line_option(&a->prediction.line, "--line"));
  add_value_option(app, "--new-line", "FILE:LINE", "the same line in the new build, if it moved",
                   false, line_option(&a->prediction.new_line, "--new-line"));
  add_value_option(app, "--point", "NAME", "with --profile: the progress point to check", false,
                   [a](const std::string& v, std::string*) {
                     a->prediction.point = v;
                     return true;
                   });
  add_value_option(app, "--line-runs", "N",
                   "profiled runs of each build for the line's own speedup (default 3)", false,
                   [a](const std::string& v, std::string* e) {
                     return parse_count("--line-runs", v, 1, &a->prediction.runs, e);
                   });
}

// Options, then `---` OLD..., then `---` NEW...; -1 to go on, else the exit status.
int parse(const std::vector<std::string>& args, CompareArgs* a) {
  CLI::App app("", kWho);
  setup(&app, a);
  auto first = std::find(args.begin(), args.end(), "---");
  auto second = first == args.end() ? args.end() : std::find(first + 1, args.end(), "---");
  std::vector<std::string> words;
  std::string error;
  Parsed parsed =
      parse_command_line(&app, std::vector<std::string>(args.begin(), first), &words, &error);
  if (int status = act_on_parse(app, parsed, error); status >= 0) {
    return status;
  }
  if (!words.empty() || second == args.end() || first + 1 == second || second + 1 == args.end()) {
    return usage_error(app,
                       "name both programs: coz compare [options] --- OLD [args...] --- NEW "
                       "[args...]");
  }
  a->old_command.assign(first + 1, second);
  a->new_command.assign(second + 1, args.end());
  if (a->prediction.profile.empty() != a->prediction.line.empty()) {
    return usage_error(app,
                       "--profile and --line go together: the profile's prediction is for "
                       "the line the new build sped up");
  }
  if (a->until_confident && a->max_layouts < a->layouts) {
    a->max_layouts = a->layouts;
  }
  a->prediction.confidence = a->stats.confidence;
  return -1;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

uint64_t drawn_seed() {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, 0) != sizeof seed) {
    seed = platform::monotonic_ns() ^ (static_cast<uint64_t>(getpid()) << 32);
  }
  return seed | 1;
}

// Whether every interval is within the precision (or cannot narrow further).
bool confident(const analysis::Comparison& c) {
  for (const analysis::MetricComparison& m : c.metrics) {
    if (m.layouts_needed > 0 || !m.has_interval) {
      return false;
    }
  }
  return !c.metrics.empty();
}

// Before the runs: the viewer's compare page is there and `path` can be written.
bool prepare_page(const std::string& path, output::ViewerFiles* viewer, std::string* error) {
  std::string dir = find_viewer(error);
  if (dir.empty()) {
    return false;
  }
  if (!load_viewer(dir, viewer, error)) {
    return false;
  }
  if (viewer->compare_html.empty() || viewer->compare_app.empty()) {
    *error = "the viewer in " + dir +
             " has no compare page (compare.html, compare.js); rebuild "
             "(cmake --build build) or reinstall";
    return false;
  }
  bool existed = access(path.c_str(), F_OK) == 0;
  std::ofstream probe(path, std::ios::binary | std::ios::app);
  if (!probe) {
    *error = "cannot write " + path + "; pick another place with --html FILE";
    return false;
  }
  probe.close();
  if (!existed) {
    unlink(path.c_str());
  }
  return true;
}

// The page of the answer (--html), written once the answer is printed.
bool write_page(const std::string& path, const output::ViewerFiles& viewer, const std::string& json,
                std::string* error) {
  std::string page;
  if (!output::build_compare_page(viewer, json, page_nonce(), &page, error)) {
    return false;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) {
    *error = "cannot write " + path + "; pick another place with --html FILE";
    return false;
  }
  tell(kWho, "the page is " + path);
  return true;
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  CompareArgs a;
  if (int status = parse(args, &a); status >= 0) {
    return status;
  }
  std::string error;
  std::string runtime = find_runtime(&error);
  if (runtime.empty()) {
    return fail(kWho, error, kExitCannotProfile);
  }
  PreloadPath preload;
  if (!preload.prepare(runtime, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  Build builds[2];
  const std::vector<std::string>* commands[2] = {&a.old_command, &a.new_command};
  for (int p = 0; p < 2; p++) {
    Program program;
    if (!resolve_program((*commands[p])[0], &program, &error) ||
        !check_preloadable(program, &error)) {
      return fail(kWho, error, kExitCannotProfile);
    }
    builds[p] = Build{*commands[p], program.path};
  }
  // Everything that can be checked before the runs is: a bad profile, line or page path must not
  // cost a whole comparison first.
  if (!a.prediction.profile.empty() && !preflight_prediction(a.prediction, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  output::ViewerFiles viewer;
  if (!a.html.empty() && !prepare_page(a.html, &viewer, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/coz-compare.XXXXXX";
  if (!mkdtemp(dir.data())) {
    return fail(kWho,
                "cannot make a temporary directory in " + dir.substr(0, dir.rfind('/')) +
                    ": free space there or point TMPDIR elsewhere",
                kExitCannotProfile);
  }
  // Ctrl-C reaches the run in progress (the same process group) and stops the comparison after it,
  // with the private directory removed.
  SignalRelay relay(false);
  LaunchSettings settings{preload.path(), a.show_output, dir, &relay};
  struct Cleanup {  // the runs' files, and the directory
    std::string dir;
    ~Cleanup() {
      if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
          if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            unlink((dir + "/" + e->d_name).c_str());
          }
        }
        closedir(d);
      }
      rmdir(dir.c_str());
    }
  } cleanup{dir};

  output::CompareSummary summary;
  summary.old_command = joined(a.old_command);
  summary.new_command = joined(a.new_command);
  summary.repeats = a.repeats;
  summary.confidence = a.stats.confidence;
  summary.precision = a.stats.precision;
  summary.fixed_layout = a.fixed_layout;
  summary.address_space_fixed = fix_address_space();
  summary.seed = a.seed ? a.seed : drawn_seed();
  analysis::Rng rng(summary.seed);
  std::vector<analysis::ComparedRun> runs;
  analysis::Comparison comparison;
  uint64_t began = platform::monotonic_ns();
  size_t processes[2] = {0, 0};
  for (size_t layout = 0;; layout++) {
    if (layout >= a.layouts) {
      comparison = analysis::compare_runs(runs, a.stats);
      if (!a.until_confident || confident(comparison) || layout >= a.max_layouts) {
        break;
      }
    }
    uint64_t seed = a.fixed_layout ? 0 : rng.next() | 1;
    std::vector<int> order;
    for (size_t r = 0; r < a.repeats; r++) {
      order.push_back(0);
      order.push_back(1);
    }
    for (size_t k = order.size(); k > 1; k--) {
      std::swap(order[k - 1], order[rng.below(k)]);
    }
    std::string said[2];
    for (int p : order) {
      LaunchResult result;
      if (!launch_once(builds[p].command, builds[p].path, seed, settings, &result, &error)) {
        return fail(kWho, error, kExitCannotProfile);
      }
      if (relay.stop_requested()) {
        tell(kWho, "stopped after " + std::to_string(runs.size()) + " runs, before an answer");
        return kExitStopped;
      }
      if (!result.succeeded) {
        return fail(kWho,
                    std::string(p == 0 ? "the old" : "the new") + " program's run at layout " +
                        std::to_string(layout + 1) + " ended with " + result.failure +
                        "; coz compare needs runs that succeed (--show-output shows its output)",
                    kExitCannotProfile);
      }
      processes[p] += result.processes;
      runs.push_back({p, layout, result.seconds, result.visits, result.in_flight_ns});
      char text[32];
      snprintf(text, sizeof text, "%s%.3f s", said[p].empty() ? "" : ", ", result.seconds);
      said[p] += text;
    }
    if (!a.quiet) {
      fprintf(stderr, "coz compare: layout %zu: old %s; new %s\n", layout + 1, said[0].c_str(),
              said[1].c_str());
    }
  }
  summary.layouts = runs.empty() ? 0 : runs.back().layout + 1;
  for (int p = 0; p < 2; p++) {
    if (processes[p] == 0) {
      tell(kWho, std::string("warning: the runtime did not start in the ") +
                     (p == 0 ? "old" : "new") +
                     " program (it clears its environment, or gains privileges): its progress "
                     "points are not counted and its layout is not moved");
    }
  }
  output::PredictionCheck check;
  if (!a.prediction.profile.empty() &&
      !check_prediction(a.prediction, builds[0], builds[1], settings, comparison, &check, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  summary.seconds = static_cast<double>(platform::monotonic_ns() - began) / 1e9;
  std::string json = output::compare_json(summary, comparison, check, runs);
  fputs((a.json ? json : output::compare_text(summary, comparison, check)).c_str(), stdout);
  if (!a.html.empty() && !write_page(a.html, viewer, json, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  return kExitOk;
}

}  // namespace coz::cli
