// `coz coordinate`: runs one experiment across programs and hosts (docs/across-hosts.md). Each
// program joins with `coz run --coordinator HOST:PORT`; the coordinator writes the one profile.
#pragma once

#include <string>
#include <vector>

namespace coz::cli {

// Returns the exit status: 0 when the run ended (its last member left, or SIGINT/SIGTERM) and
// the profile was written; 2 for a usage error, an address it cannot listen on (or a
// non-loopback one without a shared secret), or a profile it cannot write.
int coordinate_command(const std::vector<std::string>& args);

}  // namespace coz::cli
