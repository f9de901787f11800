// Options of `coz run`, parsed without side effects so they can be unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace coz::cli {

struct RunOptions {
  std::vector<std::string> binary_scope;
  std::vector<std::string> source_scope;
  bool include_system = false;  // system and toolchain sources back in source scope
  std::string output = "profile.coz";
  bool end_to_end = false;
  std::string fixed_line;  // FILE:LINE or empty
  int fixed_speedup = -1;  // 0-100, -1 when not fixed
  uint64_t sampling_period_ns = 1000000;
  uint64_t experiment_length_ns = 0;  // 0: the runtime's default (500 ms)
  double zero_speedup_share = -1;     // -1: the runtime's default (0.5)
  // Load amplification: a fixed speedup per arrival, or load factors (one run per level).
  uint64_t arrival_speedup_ns = 0;
  std::vector<double> loads;
  bool keep_going = false;  // go on after a run that fails (exits non-zero or is killed)
  int runs = 1;             // runs per load level (or of the program, without --load)
  // Command-line progress points, FILE:LINE each.
  std::vector<std::string> breakpoint_progress;
  std::vector<std::string> sampled_progress;
  bool verbose = false;
  bool help = false;
  std::vector<std::string> command;  // program and its arguments
};

// Parses the arguments after `run`. Returns false and sets `error` (one line, no prefix) for
// malformed input.
bool parse_run_options(const std::vector<std::string>& args, RunOptions* out, std::string* error);

// Parses a duration: a number with a unit (ns, us, ms, s) or plain nanoseconds.
bool parse_duration_ns(const std::string& text, uint64_t* out);

extern const char* const kRunUsage;

}  // namespace coz::cli
