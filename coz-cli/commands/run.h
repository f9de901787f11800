// `coz run`: checks, then runs the program with the runtime preloaded and returns its status.
#pragma once

#include <string>
#include <vector>

namespace coz::cli {

// Returns the process exit status for `coz run` (the program's own status once it has run).
int run_command(const std::vector<std::string>& args);

}  // namespace coz::cli
