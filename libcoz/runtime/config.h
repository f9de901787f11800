// Runtime configuration, read once at start-up from the COZ_* environment variables that
// `coz run` sets. The CLI validates user input; this parser is defensive and reports bad values
// rather than guessing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace coz {

// Command-line progress points: breakpoints need one of the CPU's debug registers each (x86-64
// has four); sampled points are checked on every sample, so their number is kept small.
inline constexpr size_t kMaxBreakpointPoints = 4;
inline constexpr size_t kMaxSampledPoints = 16;

struct Config {
  std::string output = "profile.coz";
  std::vector<std::string> binary_scope;  // empty: MAIN
  std::vector<std::string> source_scope;  // empty: everything but system and toolchain files
  bool include_system = false;            // system and toolchain files in source scope too
  bool end_to_end = false;
  std::string fixed_line;  // FILE:LINE, or empty
  int fixed_speedup = -1;  // 0-100, or -1 for random
  uint64_t sampling_period_ns = 1000000;
  double zero_speedup_share = 0.5;            // share of 0% (baseline) experiments
  uint64_t experiment_length_ns = 500000000;  // first experiment length
  bool verbose = false;
  bool is_root_process = true;  // the process `coz run` started (not a child it forked or exec'd)
  std::string debug_path;       // extra directories for separate debug files
  uint64_t exec_ns = 0;         // CLOCK_MONOTONIC just before `coz run` exec'd the program
  uint64_t arrival_speedup_ns = 0;  // load amplification: fixed speedup per arrival
  double load = 0;                  // load amplification: target load factor (> 1), or 0
  std::vector<std::string> breakpoint_progress;  // FILE:LINE progress points (breakpoints)
  std::vector<std::string> sampled_progress;     // FILE:LINE progress points (samples)
  uint64_t run_id = 0;  // the `coz run` that started this process (its pid), written on experiments

  // Reads the environment. Problems are appended to `errors` as user-facing sentences.
  static Config from_environment(std::vector<std::string>* errors);
};

// Environment variable names shared by the CLI and the runtime.
namespace env {
inline constexpr const char* kOutput = "COZ_OUTPUT";
inline constexpr const char* kBinaryScope = "COZ_BINARY_SCOPE";
inline constexpr const char* kSourceScope = "COZ_SOURCE_SCOPE";
inline constexpr const char* kIncludeSystem = "COZ_INCLUDE_SYSTEM";
inline constexpr const char* kEndToEnd = "COZ_END_TO_END";
inline constexpr const char* kFixedLine = "COZ_FIXED_LINE";
inline constexpr const char* kFixedSpeedup = "COZ_FIXED_SPEEDUP";
inline constexpr const char* kSamplingPeriod = "COZ_SAMPLING_PERIOD";
inline constexpr const char* kVerbose = "COZ_VERBOSE";
inline constexpr const char* kRootPid = "COZ_ROOT_PID";
inline constexpr const char* kDebugPath = "COZ_DEBUG_PATH";
inline constexpr const char* kExecTime = "COZ_EXEC_NS";
inline constexpr const char* kZeroSpeedupShare = "COZ_ZERO_SPEEDUP_SHARE";
inline constexpr const char* kExperimentLength = "COZ_EXPERIMENT_LENGTH";
inline constexpr const char* kArrivalSpeedup = "COZ_ARRIVAL_SPEEDUP";
inline constexpr const char* kLoad = "COZ_LOAD";
inline constexpr const char* kBreakpointProgress = "COZ_PROGRESS_BREAKPOINTS";
inline constexpr const char* kSampledProgress = "COZ_SAMPLED_PROGRESS";
inline constexpr const char* kRunId = "COZ_RUN_ID";
}  // namespace env

}  // namespace coz
