// The run configuration's option table (see run_config.h).
#include "config/run_config.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <utility>

#include "base/plain_math.h"
#include "config/file_line.h"
#include "remote/address.h"

namespace coz {
namespace {

// Function-local statics: the runtime reads its configuration from a constructor that may run
// before this file's global initialisers.
const RunConfig& defaults() {
  static const RunConfig config;
  return config;
}

bool parse_u64(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') {
    return false;
  }
  *out = v;
  return true;
}

bool parse_double(const std::string& text, double low, double high, double* out) {
  char* end = nullptr;
  double v = strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= low && v <= high)) {
    return false;
  }
  *out = v;
  return true;
}

bool parse_duration_in(const std::string& text, uint64_t low, uint64_t high, uint64_t* out) {
  uint64_t ns = 0;
  if (!parse_duration_ns(text, &ns) || ns < low || ns > high) {
    return false;
  }
  *out = ns;
  return true;
}

std::string format_double(double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : ",") + item;
  }
  return out;
}

std::string format_u64_if_set(uint64_t v) {
  return v == 0 ? "" : std::to_string(v);
}

// Appends the patterns in `text` to `list`; false when it names none.
bool append_patterns(const std::string& text, std::vector<std::string>* list, std::string* why) {
  std::vector<std::string> items = split_list(text);
  if (items.empty()) {
    *why = "must be a non-empty pattern";
    return false;
  }
  list->insert(list->end(), items.begin(), items.end());
  return true;
}

bool append_file_lines(const std::string& text, std::vector<std::string>* list, std::string* why) {
  std::vector<std::string> items = split_list(text);
  for (const std::string& item : items) {
    if (!parse_file_line(item)) {
      *why = kNotFileLine;
      return false;
    }
  }
  if (items.empty()) {
    *why = kNotFileLine;
    return false;
  }
  list->insert(list->end(), items.begin(), items.end());
  return true;
}

// A duration for the help text, in the largest unit that keeps it whole: "1ms", "500ms".
std::string help_duration(uint64_t ns) {
  static const std::pair<uint64_t, const char*> units[] = {
      {1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
  for (const auto& [size, name] : units) {
    if (ns != 0 && ns % size == 0) {
      return std::to_string(ns / size) + name;
    }
  }
  return std::to_string(ns) + "ns";
}

bool parse_switch(const std::string& text, bool* out, std::string* why) {
  if (text == "1") {
    *out = true;
  } else if (text == "0") {
    *out = false;
  } else {
    *why = "must be 1 or 0";
    return false;
  }
  return true;
}

}  // namespace

const std::vector<ConfigOption>& run_config_options() {
  // clang-format off
  static const std::vector<ConfigOption> options = {
  {"-b,--binary-scope", "COZ_BINARY_SCOPE", OptionSource::kFlag, "PATTERN",
   "objects to profile: MAIN (default, the executable), or paths with % or * wildcards; "
   "repeat or separate with commas", true,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return append_patterns(t, &c->binary_scope, why); },
   [](const RunConfig& c) { return join(c.binary_scope); }},
  {"-s,--source-scope", "COZ_SOURCE_SCOPE", OptionSource::kFlag, "PATTERN",
   "source files to profile (default: all with debug info but system and toolchain files; a "
   "pattern starting with a literal, like /usr/include/%, names those too)", true,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return append_patterns(t, &c->source_scope, why); },
   [](const RunConfig& c) { return join(c.source_scope); }},
  {"--include-system", "COZ_INCLUDE_SYSTEM", OptionSource::kFlag, nullptr,
   "also profile system and toolchain sources (/usr/include, /usr/lib, /rustc, "
   "~/.cargo/registry, ~/.rustup, ...)", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return parse_switch(t, &c->include_system, why); },
   [](const RunConfig& c) { return std::string(c.include_system ? "1" : ""); }},
  {"-o,--output", "COZ_OUTPUT", OptionSource::kFlag, "FILE",
   std::string("profile to append to (default: ") + kDefaultProfile + ")", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (t.empty()) { *why = "must be a file name"; return false; }
     c->output = t; return true; },
   [](const RunConfig& c) { return c.output == defaults().output ? "" : c.output; }},
  {"--end-to-end", "COZ_END_TO_END", OptionSource::kFlag, nullptr,
   "one experiment over the whole run", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return parse_switch(t, &c->end_to_end, why); },
   [](const RunConfig& c) { return std::string(c.end_to_end ? "1" : ""); }},
  {"--coordinator", "COZ_COORDINATOR", OptionSource::kFlag, "HOST:PORT",
   "join the run of `coz coordinate` there: one experiment across programs and hosts", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     std::string host, port;
     if (!remote::split_host_port(t, &host, &port)) {
       *why = "is not HOST:PORT (for example 127.0.0.1:7000)"; return false; }
     c->coordinator = t; return true; },
   [](const RunConfig& c) { return c.coordinator; }},
  {"--secret-file", "COZ_SECRET_FILE", OptionSource::kFlag, "FILE",
   "the shared secret of a coordinator on another host (or COZ_SECRET)", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (t.empty()) { *why = "must be a file name"; return false; }
     c->secret_file = t; return true; },
   [](const RunConfig& c) { return c.secret_file; }},
  {"--fixed-line", "COZ_FIXED_LINE", OptionSource::kFlag, "FILE:LINE",
   "only speed up this line", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_file_line(t)) { *why = kNotFileLine; return false; }
     c->fixed_line = t; return true; },
   [](const RunConfig& c) { return c.fixed_line; }},
  {"--fixed-speedup", "COZ_FIXED_SPEEDUP", OptionSource::kFlag, "N",
   "only use this speedup, 0-100 (percent)", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     uint64_t n = 0;
     if (!parse_u64(t, &n) || n > 100) {
       *why = "is not a whole percentage from 0 to 100"; return false; }
     c->fixed_speedup = static_cast<int>(n); return true; },
   [](const RunConfig& c) {
     return c.fixed_speedup < 0 ? std::string() : std::to_string(c.fixed_speedup); }},
  {"--sampling-period", "COZ_SAMPLING_PERIOD", OptionSource::kFlag, "T",
   "CPU time between samples: " + help_duration(kDefaultSamplingPeriodNs) +
       " (default), 500us, ...", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_duration_in(t, 10000, 1000000000, &c->sampling_period_ns)) {
       *why = "must be a duration from 10us to 1s (for example 1ms)"; return false; }
     return true; },
   [](const RunConfig& c) {
     return c.sampling_period_ns == defaults().sampling_period_ns
                ? std::string() : format_duration_ns(c.sampling_period_ns); }},
  {"--experiment-length", "COZ_EXPERIMENT_LENGTH", OptionSource::kFlag, "T",
   "first experiment length: " + help_duration(kDefaultExperimentLengthNs) +
       " (default); doubles while an experiment sees fewer than 5 "
   "progress-point visits, and halves, down to 100ms, while every point visited gets more than "
   "100", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_duration_in(t, 1000000, 3600000000000ull, &c->experiment_length_ns)) {
       *why = "must be a duration from 1ms to 1h (for example 500ms)"; return false; }
     return true; },
   [](const RunConfig& c) {
     return c.experiment_length_ns == defaults().experiment_length_ns
                ? std::string() : format_duration_ns(c.experiment_length_ns); }},
  {"--zero-speedup-share", "COZ_ZERO_SPEEDUP_SHARE", OptionSource::kFlag, "P",
   "share of 0% (baseline) experiments, 0-1 (default " +
       format_double(kDefaultZeroSpeedupShare) + ")", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_double(t, 0, 1, &c->zero_speedup_share)) {
       *why = "must be a fraction from 0 to 1 (for example 0.5)"; return false; }
     return true; },
   [](const RunConfig& c) {
     return c.zero_speedup_share == defaults().zero_speedup_share
                ? std::string() : format_double(c.zero_speedup_share); }},
  {"--speedup-step", "COZ_SPEEDUP_STEP", OptionSource::kFlag, "N",
   "non-zero speedups are drawn from N%, 2N%, ..., 100%: " +
       std::to_string(kDefaultSpeedupStep) + " (default), 10, 20, 25 or 50", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     uint64_t n = 0;
     if (!parse_u64(t, &n) || n == 0 || n > 100 || 100 % n != 0) {
       *why = "must divide 100 (for example 5, 10, 20 or 25)"; return false; }
     c->speedup_step = static_cast<int>(n); return true; },
   [](const RunConfig& c) {
     return c.speedup_step == defaults().speedup_step ? std::string()
                                                      : std::to_string(c.speedup_step); }},
  {"--progress", "COZ_PROGRESS_BREAKPOINTS", OptionSource::kFlag, "FILE:LINE",
   "count every execution of this line (hardware breakpoint)", true,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return append_file_lines(t, &c->breakpoint_progress, why); },
   [](const RunConfig& c) { return join(c.breakpoint_progress); }},
  {"--sampled-progress", "COZ_SAMPLED_PROGRESS", OptionSource::kFlag, "FILE:LINE",
   "count samples in this line as progress", true,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return append_file_lines(t, &c->sampled_progress, why); },
   [](const RunConfig& c) { return join(c.sampled_progress); }},
  {"--arrival-speedup", "COZ_ARRIVAL_SPEEDUP", OptionSource::kFlag, "T",
   "load amplification: make each arrival (COZ_ARRIVAL or COZ_BEGIN) T sooner: 750us, 1ms, or "
   "nanoseconds", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_duration_in(t, 1, 60000000000ull, &c->arrival_speedup_ns)) {
       *why = "must be a duration from 1ns to 60s per arrival (for example 750us)"; return false; }
     return true; },
   [](const RunConfig& c) { return format_u64_if_set(c.arrival_speedup_ns); }},
  {"--sampler", "COZ_SAMPLER", OptionSource::kFlag, "KIND",
   "how threads are sampled: auto (default: perf_event, else timer where perf_event is "
   "refused), perf, timer (per-thread CPU-time timers, at the kernel's tick), or clock (a "
   "sampling thread reads each thread's CPU clock and signals it every 1 ms of its CPU time; "
   "better than the timer on pipelines and locks, worse on loops that meet at barriers)", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (t == "auto") { c->sampler = SamplerRequest::kAuto;
     } else if (t == "perf") { c->sampler = SamplerRequest::kPerf;
     } else if (t == "timer") { c->sampler = SamplerRequest::kTimer;
     } else if (t == "clock") { c->sampler = SamplerRequest::kClock;
     } else { *why = "must be auto, perf, timer or clock"; return false; }
     return true; },
   [](const RunConfig& c) {
     return std::string(c.sampler == SamplerRequest::kPerf    ? "perf"
                        : c.sampler == SamplerRequest::kTimer ? "timer"
                        : c.sampler == SamplerRequest::kClock ? "clock"
                                                              : ""); }},
  {"--no-off-cpu", "COZ_NO_OFF_CPU", OptionSource::kFlag, nullptr,
   "do not time blocking calls (read, recv, poll, fsync, sleeps, waitpid, ...): profile running "
   "time only, as Coz does", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     bool off = false;
     if (!parse_switch(t, &off, why)) { return false; }
     c->off_cpu = !off;
     return true; },
   [](const RunConfig& c) { return std::string(c.off_cpu ? "" : "1"); }},
  {"--no-follow-children", "COZ_NO_FOLLOW_CHILDREN", OptionSource::kFlag, nullptr,
   "profile the started process only: its forked children and the programs it runs are neither "
   "sampled nor slowed, as with Coz", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     bool off = false;
     if (!parse_switch(t, &off, why)) { return false; }
     c->follow_children = !off;
     return true; },
   [](const RunConfig& c) { return std::string(c.follow_children ? "" : "1"); }},
  {"-v,--verbose", "COZ_VERBOSE", OptionSource::kFlag, nullptr,
   "say what the profiler is doing", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return parse_switch(t, &c->verbose, why); },
   [](const RunConfig& c) { return std::string(c.verbose ? "1" : ""); }},
  {nullptr, "COZ_LOAD", OptionSource::kCozRun, "F", "load factor of this run (from --load)", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_double(t, 1, 1000, &c->load)) {
       *why = "must be a load factor from 1 to 1000"; return false; }
     return true; },
   [](const RunConfig& c) { return c.load == 0 ? std::string() : format_double(c.load); }},
  {nullptr, "COZ_ROOT_PID", OptionSource::kCozRun, "PID", "the process coz run started", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_u64(t, &c->root_pid)) { *why = "must be a process id"; return false; }
     return true; },
   [](const RunConfig& c) { return format_u64_if_set(c.root_pid); }},
  {nullptr, "COZ_RUN_ID", OptionSource::kCozRun, "ID", "the coz run that started it", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_u64(t, &c->run_id)) { *why = "must be a whole number"; return false; }
     return true; },
   [](const RunConfig& c) { return format_u64_if_set(c.run_id); }},
  {nullptr, "COZ_EXEC_NS", OptionSource::kCozRun, "NS", "when coz run exec'd it", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_u64(t, &c->exec_ns)) { *why = "must be nanoseconds"; return false; }
     return true; },
   [](const RunConfig& c) { return format_u64_if_set(c.exec_ns); }},
  {nullptr, kCountOnlyVariable, OptionSource::kCozRun, "FILE",
   "coz compare's counts file: only count progress points", false,
   [](const std::string& t, RunConfig* c, std::string*) { c->count_only = t; return true; },
   [](const RunConfig& c) { return c.count_only; }},
  {nullptr, kLayoutVariable, OptionSource::kCozRun, "SEED", "coz compare's layout for the run", false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     if (!parse_u64(t, &c->layout_seed)) { *why = "must be a whole number"; return false; }
     return true; },
   [](const RunConfig& c) { return format_u64_if_set(c.layout_seed); }},
  {nullptr, kDebugPathVariable, OptionSource::kUser, "DIRS",
   "extra directories for separate debug files", false,
   [](const std::string& t, RunConfig* c, std::string*) { c->debug_path = t; return true; },
   [](const RunConfig& c) { return c.debug_path; }},
  {nullptr, kLedgerTraceVariable, OptionSource::kUser, "FILE",
   "a trace of the delay protocol, for debugging (the first process only)", false,
   [](const std::string& t, RunConfig* c, std::string*) { c->ledger_trace = t; return true; },
   [](const RunConfig& c) { return c.ledger_trace; }},
  {nullptr, kSecretVariable, OptionSource::kUser, "TEXT",
   "the shared secret of a run across programs (else --secret-file)", false,
   [](const std::string& t, RunConfig* c, std::string*) { c->secret = t; return true; },
   [](const RunConfig& c) { return c.secret; }},
  {nullptr, "COZ_MEMBER_CREDIT", OptionSource::kUser, "0",
   "0: a member of a run across programs credits no socket waits (to measure what it does)",
   false,
   [](const std::string& t, RunConfig* c, std::string* why) {
     return parse_switch(t, &c->member_credit, why); },
   [](const RunConfig& c) { return std::string(c.member_credit ? "" : "0"); }},
};
  // clang-format on
  return options;
}

bool operator==(const RunConfig& a, const RunConfig& b) {
  auto fields = [](const RunConfig& c) {
    return std::tie(c.output, c.binary_scope, c.source_scope, c.include_system, c.end_to_end,
                    c.fixed_line, c.fixed_speedup, c.sampling_period_ns, c.sampler,
                    c.experiment_length_ns, c.zero_speedup_share, c.speedup_step,
                    c.breakpoint_progress, c.sampled_progress, c.arrival_speedup_ns, c.load,
                    c.verbose, c.off_cpu, c.follow_children, c.root_pid, c.run_id, c.exec_ns,
                    c.count_only, c.layout_seed, c.debug_path, c.coordinator, c.secret_file,
                    c.ledger_trace, c.secret, c.member_credit);
  };
  return fields(a) == fields(b);
}

bool validate(const RunConfig& config, std::string* error) {
  if (config.breakpoint_progress.size() > kMaxBreakpointPoints) {
    *error = "at most " + std::to_string(kMaxBreakpointPoints) +
             " --progress points (the CPU has that many debug registers); use --sampled-progress "
             "for more";
    return false;
  }
  if (config.sampled_progress.size() > kMaxSampledPoints) {
    *error = "at most " + std::to_string(kMaxSampledPoints) + " --sampled-progress points";
    return false;
  }
  return true;
}

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
  *out = plain_math::round_to_u64(ns);
  return true;
}

std::string format_duration_ns(uint64_t ns) {
  return std::to_string(ns);
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) {
      out.push_back(item);
    }
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace coz
