// Reading the profiles a command was given, with warnings for malformed lines.
#pragma once

#include <string>
#include <vector>

namespace coz::analysis {
class ProfileData;
}

namespace coz::cli {

// Reads `files` into `data`, printing malformed lines (the first ten) as warnings prefixed by
// `who`. Returns false, after printing why, when a file cannot be read.
bool read_profiles(const std::vector<std::string>& files, const char* who,
                   analysis::ProfileData* data);

}  // namespace coz::cli
