// The run configuration: one table of options shared by `coz run` and the runtime.
//
// `coz run` fills a RunConfig from its command line (every entry with `flags`), sets what it
// knows itself (the profile's path, its pid, the load level), and exports the result into the
// program's environment as COZ_* variables (`to_environment`). The runtime reads it back
// (`from_environment`) with the same entries' `parse`. Every default lives in one place, the
// member initialisers of RunConfig: an entry whose value is the default exports nothing.
//
// Pure apart from `export_to_environment`; used by the runtime, so it links nothing new.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace coz {

// Command-line progress points: breakpoints need one of the CPU's debug registers each (x86-64
// has four); sampled points are checked on every sample, so their number is kept small.
inline constexpr size_t kMaxBreakpointPoints = 4;
inline constexpr size_t kMaxSampledPoints = 16;

// The defaults, named once here for the parts that take them (the sampler, the scheduler, the
// experiment runner) and for messages that quote them.
inline constexpr uint64_t kDefaultSamplingPeriodNs = 1000000;      // 1 ms of thread CPU time
inline constexpr uint64_t kDefaultExperimentLengthNs = 500000000;  // the first experiment's length
inline constexpr double kDefaultZeroSpeedupShare = 0.5;
inline constexpr int kDefaultSpeedupStep = 5;  // speedups drawn from 5, 10, ..., 100
inline constexpr const char* kDefaultProfile = "profile.coz";  // coz run writes, report reads

// Which sampler runs (sample/sampler.h): perf_event where the kernel allows it, else per-thread
// CPU-time timers (kAuto); or one of them by name.
// kClock: a sampling thread that signals threads by their CPU clocks (sample/clock_sampler.h).
enum class SamplerRequest { kAuto, kPerf, kTimer, kClock };

struct RunConfig {
  std::string output = kDefaultProfile;
  std::vector<std::string> binary_scope;  // empty: MAIN
  std::vector<std::string> source_scope;  // empty: everything but system and toolchain files
  bool include_system = false;            // system and toolchain files in source scope too
  bool end_to_end = false;
  std::string fixed_line;   // FILE:LINE, or empty
  std::string coordinator;  // HOST:PORT of `coz coordinate`, or empty (remote/coordinator_link.h)
  std::string secret_file;  // its shared secret, when not in COZ_SECRET
  int fixed_speedup = -1;   // 0-100, or -1 for random
  uint64_t sampling_period_ns = kDefaultSamplingPeriodNs;
  SamplerRequest sampler = SamplerRequest::kAuto;
  uint64_t experiment_length_ns = kDefaultExperimentLengthNs;  // first experiment length
  double zero_speedup_share = kDefaultZeroSpeedupShare;        // share of 0% (baseline) experiments
  int speedup_step = kDefaultSpeedupStep;        // non-zero speedups: multiples of this up to 100
  std::vector<std::string> breakpoint_progress;  // FILE:LINE progress points (breakpoints)
  std::vector<std::string> sampled_progress;     // FILE:LINE progress points (samples)
  uint64_t arrival_speedup_ns = 0;               // load amplification: fixed speedup per arrival
  double load = 0;  // load amplification: target load factor (>= 1), or 0
  bool verbose = false;
  bool off_cpu = true;  // time blocking calls (off-CPU profiling); --no-off-cpu turns it off
  // Profile forked children and exec'd programs in the same run (runtime/shared_run.h);
  // --no-follow-children turns it off.
  bool follow_children = true;
  // Set by `coz run` for each process it starts, never by the user.
  uint64_t root_pid = 0;  // the process `coz run` started (its children inherit the variable)
  uint64_t run_id = 0;    // the `coz run` that started it (its pid), written on experiments
  uint64_t exec_ns = 0;   // CLOCK_MONOTONIC just before `coz run` exec'd the program
  // Set by `coz compare` for each run: the file each process of the run appends its counts to.
  // The runtime then only counts progress points (runtime/count_run.h): no sampler, no
  // experiments, no profiler thread.
  std::string count_only;
  uint64_t layout_seed = 0;  // with count_only: the run's layout (layout/layout_shift.h)
  // Read from the user's own environment; `coz run` passes it through untouched.
  std::string debug_path;     // extra directories for separate debug files
  std::string ledger_trace;   // a debugging trace of the delay protocol (delays/ledger_trace.h)
  std::string secret;         // a run across programs' shared secret, instead of secret_file
  bool member_credit = true;  // a member's socket waits are credited (runtime/membership.h)
};

bool operator==(const RunConfig& a, const RunConfig& b);
inline bool operator!=(const RunConfig& a, const RunConfig& b) {
  return !(a == b);
}

// The user's variable for extra debug-file directories, which `coz run`'s checks read too.
inline constexpr const char* kDebugPathVariable = "COZ_DEBUG_PATH";
// The user's variable for the delay protocol's trace, a debugging switch (delays/ledger_trace.h).
inline constexpr const char* kLedgerTraceVariable = "COZ_LEDGER_TRACE";
// The user's variable for a run across programs' shared secret, which `coz coordinate` reads too.
inline constexpr const char* kSecretVariable = "COZ_SECRET";

// `coz compare`'s variables for each run (RunConfig::count_only, layout_seed).
inline constexpr const char* kCountOnlyVariable = "COZ_COUNT_ONLY";
inline constexpr const char* kLayoutVariable = "COZ_LAYOUT";
// The layout seed of a count-only run, read before anything else (building the option table
// allocates and frees, and the layout's block of the heap must come first: runtime/count_run.h).
// 0 when the run only counts with no layout, or does not only count; an unreadable value is
// said by the full read (from_environment).
uint64_t early_layout_seed();

// Who sets an option.
enum class OptionSource {
  kFlag,    // the user, on `coz run`'s command line
  kCozRun,  // `coz run` itself, for each process it starts
  kUser,    // the user's environment (passed through)
};

struct ConfigOption {
  const char* flags;  // `coz run`'s names, "-o,--output" (kFlag only)
  const char* env;    // the environment variable
  OptionSource source;
  const char* value_name;  // "FILE", "T", ...; nullptr for a switch
  std::string help;        // defaults in it are formatted from RunConfig's, never written again
  bool list;               // repeatable: each value (commas separate several) is appended
  // Reads `text` into the config (a list appends). False with `why`, a phrase that follows the
  // quoted value: "must be a whole percentage from 0 to 100".
  bool (*parse)(const std::string& text, RunConfig* config, std::string* why);
  // The value as text `parse` reads back; empty when it is the default.
  std::string (*format)(const RunConfig& config);
};

// The run's memory as a file of /dev/shm, where descriptors are scarce (runtime/shared_run.h):
// this prefix, the root's pid, '.', a random part. `coz run` removes one its program left behind.
inline constexpr const char* kSharedRunFilePrefix = "/dev/shm/coz-run.";

// Every option, in the order `coz run --help` lists them.
const std::vector<ConfigOption>& run_config_options();

// Checks across options (the number of progress points). False with a one-line reason.
bool validate(const RunConfig& config, std::string* error);

// The variables `coz run` sets for one process: every kFlag and kCozRun entry, value empty when
// the option has its default (the caller unsets it, so an outer run's settings cannot leak in).
std::vector<std::pair<std::string, std::string>> to_environment(const RunConfig& config);

// Applies `to_environment` to this process's environment (setenv/unsetenv).
void export_to_environment(const RunConfig& config);

// Reads every option from `lookup` (getenv by default; an empty value counts as unset).
// Problems are appended to `errors` as "COZ_X='v' must be ..." sentences.
using EnvLookup = const char* (*)(const char* name);
RunConfig from_environment(std::vector<std::string>* errors, EnvLookup lookup = nullptr);
// Reads the one option whose variable is `env` into `config`, for a command that needs only it
// (`coz coordinate`'s COZ_SECRET, `coz run`'s checks' COZ_DEBUG_PATH). False with the same
// sentence in `error` when its value is bad; true, changing nothing, when it is unset.
bool read_from_environment(const char* env, RunConfig* config, std::string* error,
                           EnvLookup lookup = nullptr);

// A duration: a number with a unit (ns, us, ms, s) or plain nanoseconds.
bool parse_duration_ns(const std::string& text, uint64_t* out);

// The canonical text of a duration: whole nanoseconds.
std::string format_duration_ns(uint64_t ns);

// Splits a comma-separated list, dropping empty items.
std::vector<std::string> split_list(const std::string& list);

}  // namespace coz
