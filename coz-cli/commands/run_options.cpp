// Parsing of `coz run` options (see run_options.h).
#include "commands/run_options.h"

#include <cstdlib>

namespace coz::cli {
namespace {

bool parse_loads(const std::string& text, std::vector<double>* loads, std::string* error) {
  loads->clear();
  for (const std::string& item : split_list(text)) {
    char* end = nullptr;
    double load = strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(load >= 1 && load <= 1000)) {
      *error = "--load '" + item +
               "' must be a load factor from 1 to 1000 (1 is the load the program generates "
               "itself; 2 doubles its arrival rate)";
      return false;
    }
    loads->push_back(load);
  }
  if (loads->empty()) {
    *error = "--load needs at least one load factor, for example --load 1,2,4";
    return false;
  }
  return true;
}

// A time budget: a number of seconds, or a number with s, m or h.
bool parse_budget(const std::string& text, double* seconds, std::string* error) {
  char* end = nullptr;
  double value = strtod(text.c_str(), &end);
  std::string unit = end ? end : "";
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (text.empty() || end == text.c_str() || scale == 0 || !(value > 0) ||
      value * scale > 7 * 86400) {
    *error = "--budget '" + text + "' must be a time such as 90s, 5m or 1h (up to a week)";
    return false;
  }
  *seconds = value * scale;
  return true;
}

}  // namespace

void setup_run_app(CLI::App* app, RunOptions* out) {
  setup_app(app, "coz run [options] --- program [args...]",
            "Runs the program with the causal profiler preloaded and appends a profile.",
            "Use --- (or --) before the program. The exit status is the program's own, or 128+N "
            "when signal N killed it.");
  for (const ConfigOption& o : run_config_options()) {
    if (o.source != OptionSource::kFlag) {
      continue;
    }
    std::string long_name = o.flags;
    long_name = long_name.substr(long_name.rfind("--"));
    if (!o.value_name) {
      add_switch(app, o.flags, o.help, [o, out] {
        std::string why;
        o.parse("1", &out->config, &why);
      });
      continue;
    }
    add_value_option(app, o.flags, o.value_name, o.help, o.list,
                     [o, out, long_name](const std::string& v, std::string* error) {
                       std::string why;
                       if (!o.parse(v, &out->config, &why)) {
                         *error = long_name + " '" + v + "' " + why;
                         return false;
                       }
                       return true;
                     });
  }
  add_value_option(app, "--load", "F[,F...]",
                   "load amplification: F times the arrival rate, measured while running; a list "
                   "runs the program once per level (a scalability sweep; with --end-to-end and "
                   "no --fixed-line or --fixed-speedup, a sweep measures load alone: speedup 0%)",
                   false, [out](const std::string& v, std::string* error) {
                     return parse_loads(v, &out->loads, error);
                   });
  add_value_option(app, "--runs", "N",
                   "run the program N times (per load level), one profile; stops at the first run "
                   "that fails",
                   false, [out](const std::string& v, std::string* error) {
                     char* end = nullptr;
                     long n = strtol(v.c_str(), &end, 10);
                     if (v.empty() || *end != '\0' || n < 1 || n > 1000) {
                       *error = "--runs '" + v + "' must be a whole number from 1 to 1000";
                       return false;
                     }
                     out->runs = static_cast<int>(n);
                     out->runs_given = true;
                     return true;
                   });
  add_value_option(app, "--budget", "TIME",
                   "run the program again and again until TIME (90s, 5m, 1h) has passed; a run "
                   "under way when it ends is finished, not stopped; --runs caps the runs",
                   false, [out](const std::string& v, std::string* error) {
                     return parse_budget(v, &out->budget_s, error);
                   });
  add_switch(app, "--until-confident",
             "run the program again and again until the best line of each progress point is "
             "told apart (its impact interval above zero and clear of the next line's), at most "
             "for --budget (default 10m)",
             [out] { out->until_confident = true; });
  add_switch(app, "--quiet",
             "no live status line (shown on a terminal only) and no summary at the end",
             [out] { out->quiet = true; });
  add_switch(app, "--keep-going", "with --runs or a --load list: run on after a failed run",
             [out] { out->keep_going = true; });
}

Parsed parse_run_options(CLI::App* app, const std::vector<std::string>& args, RunOptions* out,
                         std::string* error) {
  size_t split = 0;
  while (split < args.size() && args[split] != "---" && args[split] != "--") {
    split++;
  }
  std::vector<std::string> words;
  Parsed parsed = parse_command_line(
      app, std::vector<std::string>(args.begin(), args.begin() + static_cast<long>(split)), &words,
      error);
  if (parsed != Parsed::kOk) {
    return parsed;
  }
  if (!words.empty()) {
    *error = "put --- before the program to run: coz run [options] --- " + words[0] + " ...";
    return Parsed::kError;
  }
  if (!validate(out->config, error)) {
    return Parsed::kError;
  }
  if (out->config.arrival_speedup_ns != 0 && !out->loads.empty()) {
    *error = "use either --arrival-speedup or --load, not both";
    return Parsed::kError;
  }
  if (out->loads.size() > 1 && out->config.end_to_end && out->config.fixed_line.empty() &&
      out->config.fixed_speedup < 0) {
    // A sweep's one experiment per run is for its scalability table, which reads 0% experiments:
    // random line speedups would waste about half the runs and perturb the rest.
    out->config.fixed_speedup = 0;
  }
  if ((out->budget_s > 0 || out->until_confident) && !out->loads.empty()) {
    *error = "--budget and --until-confident repeat one run, not a --load sweep: use --runs";
    return Parsed::kError;
  }
  if (out->until_confident && out->budget_s == 0) {
    out->budget_s = kDefaultConfidenceBudgetS;
  }
  if (split + 1 < args.size()) {
    out->command.assign(args.begin() + static_cast<long>(split) + 1, args.end());
  }
  if (out->command.empty()) {
    *error = "no program to run: coz run [options] --- program [args...]";
    return Parsed::kError;
  }
  return Parsed::kOk;
}

}  // namespace coz::cli
