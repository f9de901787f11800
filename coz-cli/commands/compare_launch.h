// One run of `coz compare`: a program started with the runtime preloaded to count only
// (runtime/count_run.h) at a layout drawn from a seed (layout/layout_shift.h), timed from fork to
// reaping, and the counts its processes wrote read back.
//
// Each run's environment is the user's with the runtime's settings, a padding variable of the
// layout's length and every variable in the layout's order; standard input is /dev/null and its
// output is discarded unless shown (a program run dozens of times should not flood the terminal
// or wait for input). Address-space randomisation is turned off in `coz compare` itself
// (personality), which every program it starts inherits, so a layout is the seed's alone and
// runs at one layout can be repeated.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/run_config.h"

namespace coz::cli {

class SignalRelay;

struct LaunchSettings {
  std::string preload;  // the runtime's path as LD_PRELOAD holds it (preload_path.h)
  bool show_output = false;
  std::string counts_dir;  // a private directory for the runs' counts files
  // Ctrl-C and friends while a run goes on (signal_relay.h, as `coz run` takes them), or null.
  SignalRelay* relay = nullptr;
};

struct LaunchResult {
  bool succeeded = false;
  std::string failure;  // "exit status 3", "killed by Segmentation fault"
  double seconds = 0;
  size_t processes = 0;  // that wrote counts (0: the runtime did not start in it)
  std::vector<std::pair<std::string, double>> visits;        // by point, over its processes
  std::vector<std::pair<std::string, double>> in_flight_ns;  // by latency point, likewise
};

// Runs `command` (command[0] resolved to `path`) once at `seed`'s layout (0: none). False with
// `error` when it cannot be started or its counts cannot be read.
bool launch_once(const std::vector<std::string>& command, const std::string& path, uint64_t seed,
                 const LaunchSettings& settings, LaunchResult* out, std::string* error);

// Runs it once profiled instead, with `config` (its output a profile), at no layout: for a
// line's samples (compare_prediction.h). False with `error` when it cannot be started.
bool launch_profiled(const std::vector<std::string>& command, const std::string& path,
                     const RunConfig& config, const LaunchSettings& settings, LaunchResult* out,
                     std::string* error);

// Turns address-space randomisation off for the programs this process starts from now on. False
// (randomisation stays) where personality() is refused, as in some containers.
bool fix_address_space();

}  // namespace coz::cli
