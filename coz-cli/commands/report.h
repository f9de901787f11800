// `coz report`: reads profiles, analyses them and prints the causal profile as a table, JSON or
// CSV.
#pragma once

#include <string>
#include <vector>

namespace coz::cli {

// Returns the exit status: 0 when there is something to show, 1 when there is not (the reason
// goes to stderr), 2 for a usage error or an unreadable file.
int report_command(const std::vector<std::string>& args);

}  // namespace coz::cli
