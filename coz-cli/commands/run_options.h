// Options of `coz run`, parsed without side effects so they can be unit-tested. The profiler's
// settings come from the shared option table (config/run_config.h); the rest say how often and
// at which loads to run the program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/command_line.h"
#include "config/run_config.h"

namespace coz::cli {

struct RunOptions {
  RunConfig config;                  // what the runtime gets (output made absolute by run_command)
  std::vector<double> loads;         // --load: one run per level (each sets config.load)
  bool keep_going = false;           // go on after a run that fails (exits non-zero or is killed)
  int runs = 1;                      // runs per load level (or of the program, without --load)
  bool runs_given = false;           // --runs was given (with --budget it caps the runs)
  double budget_s = 0;               // --budget: repeat the program until this much time passed
  bool until_confident = false;      // --until-confident: repeat until the top lines separate
  bool quiet = false;                // --quiet: no status line, no closing summary
  std::vector<std::string> command;  // program and its arguments
};

// The time --until-confident gives the program when --budget is not given.
inline constexpr double kDefaultConfidenceBudgetS = 600;

// Adds every `coz run` option to `app` (set up by `setup_run_app`), writing into `out`.
void setup_run_app(CLI::App* app, RunOptions* out);

// Parses the arguments after `run` with an app from setup_run_app: everything before the first
// `---` (or `--`) is options, everything after is the program. kError sets `error` to one line.
Parsed parse_run_options(CLI::App* app, const std::vector<std::string>& args, RunOptions* out,
                         std::string* error);

}  // namespace coz::cli
