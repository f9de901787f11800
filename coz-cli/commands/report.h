// `coz report`: reads profiles, analyses them and prints the causal profile as a table, JSON or
// CSV. Also the short summary `coz run` prints at exit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace coz::analysis {
class ProfileData;
struct AnalysisOptions;
}  // namespace coz::analysis

namespace coz::cli {

enum class OptionResult { kNotHandled, kHandled, kBad };

// The options `coz report` and `coz plot` share: --confidence, --bootstrap, --seed and --fdr
// (into `analysis`) and --min-points (into `min_points`). For one of them at args[*i], reads its
// value (advancing *i); kBad sets `error`. Anything else is kNotHandled.
OptionResult parse_shared_option(const std::vector<std::string>& args, size_t* i,
                                 analysis::AnalysisOptions* analysis, size_t* min_points,
                                 std::string* error);

// Reads `files` into `data`, printing malformed lines (the first ten) as warnings prefixed by
// `who`. Returns false, after printing why, when a file cannot be read.
bool read_profiles(const std::vector<std::string>& files, const char* who,
                   analysis::ProfileData* data);

// Returns the exit status: 0 when there is something to show, 1 when there is not (the reason
// goes to stderr), 2 for a usage error or an unreadable file.
int report_command(const std::vector<std::string>& args);

// Two lines for the end of `coz run`: experiments this run wrote (the profile from byte `offset`
// on), lines with usable data in the whole profile, and what to do when there are none.
std::string run_summary(const std::string& profile, uint64_t offset, uint64_t run_id);

}  // namespace coz::cli
