// `coz compare`: runs an old and a new build of a program interleaved, each run at a freshly
// drawn layout of its memory, and says how much faster the new one is per progress point and in
// wall-clock time, with intervals; with a causal profile, whether that is the speedup the profile
// predicted for the line that changed.
#pragma once

#include <string>
#include <vector>

namespace coz::cli {

// The exit status: 0 once compared (whatever the answer), 2 for a usage error, 1 when a run
// failed or the programs cannot be run, 130 when stopped (Ctrl-C, SIGTERM) before the answer.
int compare_command(const std::vector<std::string>& args);

}  // namespace coz::cli
