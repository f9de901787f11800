// The short summary `coz run` prints at exit.
#pragma once

#include <cstdint>
#include <string>

namespace coz::cli {

// Two lines for the end of `coz run`: experiments this run wrote (the profile from byte `offset`
// on), lines with usable data in the whole profile, and what to do when there are none.
std::string run_summary(const std::string& profile, uint64_t offset, uint64_t run_id);

}  // namespace coz::cli
