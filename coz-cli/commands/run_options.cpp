// Parsing of `coz run` options (see run_options.h).
#include "commands/run_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "line/scope.h"
#include "runtime/config.h"

namespace coz::cli {

const char* const kRunUsage =
    "usage: coz run [options] --- program [args...]\n"
    "\n"
    "Runs the program with the causal profiler preloaded and appends a profile.\n"
    "\n"
    "  -b, --binary-scope PATTERN  objects to profile: MAIN (default, the executable), or paths\n"
    "                              with % or * wildcards; repeat or separate with commas\n"
    "  -s, --source-scope PATTERN  source files to profile (default: all with debug info but\n"
    "                              system and toolchain files; a pattern starting with a\n"
    "                              literal, like /usr/include/%, names those too)\n"
    "      --include-system        also profile system and toolchain sources (/usr/include,\n"
    "                              /usr/lib, /rustc, ~/.cargo/registry, ~/.rustup, ...)\n"
    "  -o, --output FILE           profile to append to (default: profile.coz)\n"
    "      --end-to-end            one experiment over the whole run\n"
    "      --fixed-line FILE:LINE  only speed up this line\n"
    "      --fixed-speedup N       only use this speedup, 0-100 (percent)\n"
    "      --sampling-period T     CPU time between samples: 1ms (default), 500us, ...\n"
    "      --experiment-length T   first experiment length: 500ms (default); doubles while\n"
    "                              an experiment sees fewer than 5 progress-point visits\n"
    "      --zero-speedup-share P  share of 0% (baseline) experiments, 0-1 (default 0.5)\n"
    "      --progress FILE:LINE    count every execution of this line (hardware breakpoint)\n"
    "      --sampled-progress FILE:LINE\n"
    "                              count samples in this line as progress\n"
    "\n"
    "Load amplification (the program marks arrivals with COZ_ARRIVAL or COZ_BEGIN):\n"
    "      --arrival-speedup T     make each arrival T sooner: 750us, 1ms, or nanoseconds\n"
    "      --load F[,F...]         F times the arrival rate, measured while running; a list\n"
    "                              runs the program once per level (a scalability sweep;\n"
    "                              with --end-to-end and no --fixed-line or --fixed-speedup,\n"
    "                              a sweep measures load alone: speedup 0%)\n"
    "      --runs N                run the program N times (per load level), one profile;\n"
    "                              stops at the first run that fails\n"
    "      --keep-going            with --runs or a --load list: run on after a failed run\n"
    "  -v, --verbose               say what the profiler is doing\n"
    "  -h, --help                  show this help\n"
    "\n"
    "Use --- (or --) before the program. The exit status is the program's own, or 128+N when\n"
    "signal N killed it.\n";

bool parse_duration_ns(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  double value = strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || !std::isfinite(value) || value < 0) {
    return false;
  }
  std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1e3;
  } else if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "s") {
    scale = 1e9;
  } else {
    return false;
  }
  double ns = value * scale;
  if (ns > 1e15) {
    return false;
  }
  *out = static_cast<uint64_t>(std::llround(ns));
  return true;
}

namespace {

bool parse_percent(const std::string& text, int* out) {
  if (text.empty()) {
    return false;
  }
  char* end = nullptr;
  long v = strtol(text.c_str(), &end, 10);
  if (*end != '\0' || v < 0 || v > 100) {
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool valid_file_line(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    return false;
  }
  for (size_t i = colon + 1; i < text.size(); i++) {
    if (text[i] < '0' || text[i] > '9') {
      return false;
    }
  }
  return atol(text.c_str() + colon + 1) > 0;
}

}  // namespace

bool parse_run_options(const std::vector<std::string>& args, RunOptions* out, std::string* error) {
  *out = RunOptions();
  size_t i = 0;
  for (; i < args.size(); i++) {
    std::string arg = args[i];
    if (arg == "---" || arg == "--") {
      i++;
      break;
    }
    std::string value;
    bool inline_value = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        inline_value = true;
      }
    }
    auto take_value = [&](std::string* v) {
      if (inline_value) {
        *v = value;
        return true;
      }
      if (i + 1 >= args.size() || args[i + 1] == "---" || args[i + 1] == "--") {
        *error = "option " + arg + " needs a value";
        return false;
      }
      *v = args[++i];
      return true;
    };
    auto no_value = [&]() {
      if (inline_value) {
        *error = "option " + arg + " takes no value";
        return false;
      }
      return true;
    };
    std::string v;
    if (arg == "-h" || arg == "--help") {
      out->help = true;
      return true;
    } else if (arg == "-v" || arg == "--verbose") {
      if (!no_value()) {
        return false;
      }
      out->verbose = true;
    } else if (arg == "--end-to-end") {
      if (!no_value()) {
        return false;
      }
      out->end_to_end = true;
    } else if (arg == "--include-system") {
      if (!no_value()) {
        return false;
      }
      out->include_system = true;
    } else if (arg == "-b" || arg == "--binary-scope" || arg == "-s" || arg == "--source-scope") {
      if (!take_value(&v)) {
        return false;
      }
      std::vector<std::string> patterns = Scope::split_list(v);
      if (patterns.empty()) {
        *error = "option " + arg + " needs a non-empty pattern";
        return false;
      }
      auto& list = (arg == "-b" || arg == "--binary-scope") ? out->binary_scope : out->source_scope;
      list.insert(list.end(), patterns.begin(), patterns.end());
    } else if (arg == "-o" || arg == "--output") {
      if (!take_value(&v)) {
        return false;
      }
      if (v.empty()) {
        *error = "option " + arg + " needs a file name";
        return false;
      }
      out->output = v;
    } else if (arg == "--fixed-line") {
      if (!take_value(&v)) {
        return false;
      }
      if (!valid_file_line(v)) {
        *error = "--fixed-line '" + v + "' is not FILE:LINE (for example main.c:42)";
        return false;
      }
      out->fixed_line = v;
    } else if (arg == "--fixed-speedup") {
      if (!take_value(&v)) {
        return false;
      }
      if (!parse_percent(v, &out->fixed_speedup)) {
        *error = "--fixed-speedup '" + v + "' is not a whole percentage from 0 to 100";
        return false;
      }
    } else if (arg == "--sampling-period") {
      if (!take_value(&v)) {
        return false;
      }
      uint64_t ns = 0;
      if (!parse_duration_ns(v, &ns) || ns < 10000 || ns > 1000000000) {
        *error =
            "--sampling-period '" + v + "' must be a duration from 10us to 1s (for example 1ms)";
        return false;
      }
      out->sampling_period_ns = ns;
    } else if (arg == "--experiment-length") {
      if (!take_value(&v)) {
        return false;
      }
      uint64_t ns = 0;
      if (!parse_duration_ns(v, &ns) || ns < 1000000 || ns > 3600000000000ull) {
        *error =
            "--experiment-length '" + v + "' must be a duration from 1ms to 1h (for example 500ms)";
        return false;
      }
      out->experiment_length_ns = ns;
    } else if (arg == "--zero-speedup-share") {
      if (!take_value(&v)) {
        return false;
      }
      char* end = nullptr;
      double share = strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(share >= 0 && share <= 1)) {
        *error =
            "--zero-speedup-share '" + v + "' must be a fraction from 0 to 1 (for example 0.5)";
        return false;
      }
      out->zero_speedup_share = share;
    } else if (arg == "--arrival-speedup") {
      if (!take_value(&v)) {
        return false;
      }
      uint64_t ns = 0;
      if (!parse_duration_ns(v, &ns) || ns == 0 || ns > 60000000000ull) {
        *error = "--arrival-speedup '" + v +
                 "' must be a duration from 1ns to 60s per arrival (for example 750us)";
        return false;
      }
      out->arrival_speedup_ns = ns;
    } else if (arg == "--load") {
      if (!take_value(&v)) {
        return false;
      }
      out->loads.clear();
      for (const std::string& item : Scope::split_list(v)) {
        char* end = nullptr;
        double load = strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(load >= 1 && load <= 1000)) {
          *error = "--load '" + item +
                   "' must be a load factor from 1 to 1000 (1 is the load the "
                   "program generates itself; 2 doubles its arrival rate)";
          return false;
        }
        out->loads.push_back(load);
      }
      if (out->loads.empty()) {
        *error = "--load needs at least one load factor, for example --load 1,2,4";
        return false;
      }
    } else if (arg == "--keep-going") {
      out->keep_going = true;
    } else if (arg == "--runs") {
      if (!take_value(&v)) {
        return false;
      }
      char* end = nullptr;
      long n = strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 1000) {
        *error = "--runs '" + v + "' must be a whole number from 1 to 1000";
        return false;
      }
      out->runs = static_cast<int>(n);
    } else if (arg == "--progress" || arg == "--sampled-progress") {
      if (!take_value(&v)) {
        return false;
      }
      size_t colon = v.rfind(':');
      char* end = nullptr;
      long line = colon == std::string::npos ? 0 : strtol(v.c_str() + colon + 1, &end, 10);
      if (colon == std::string::npos || colon == 0 || line < 1 || *end != '\0') {
        *error = arg + " '" + v + "' must be FILE:LINE, for example main.c:42";
        return false;
      }
      (arg == "--progress" ? out->breakpoint_progress : out->sampled_progress).push_back(v);
    } else if (!arg.empty() && arg[0] == '-') {
      *error = "unknown option " + arg + " (see coz run --help)";
      return false;
    } else {
      *error = "put --- before the program to run: coz run [options] --- " + arg + " ...";
      return false;
    }
  }
  if (out->breakpoint_progress.size() > kMaxBreakpointPoints) {
    *error = "at most " + std::to_string(kMaxBreakpointPoints) +
             " --progress points (the CPU has that many debug registers); use --sampled-progress "
             "for more";
    return false;
  }
  if (out->sampled_progress.size() > kMaxSampledPoints) {
    *error = "at most " + std::to_string(kMaxSampledPoints) + " --sampled-progress points";
    return false;
  }
  if (out->arrival_speedup_ns != 0 && !out->loads.empty()) {
    *error = "use either --arrival-speedup or --load, not both";
    return false;
  }
  if (out->loads.size() > 1 && out->end_to_end && out->fixed_line.empty() &&
      out->fixed_speedup < 0) {
    // A sweep's one experiment per run is for its scalability table, which reads 0% experiments:
    // random line speedups would waste about half the runs and perturb the rest.
    out->fixed_speedup = 0;
  }
  out->command.assign(args.begin() + static_cast<long>(i), args.end());
  if (out->command.empty()) {
    *error = "no program to run: coz run [options] --- program [args...]";
    return false;
  }
  return true;
}

}  // namespace coz::cli
