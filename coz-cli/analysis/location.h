// `file:line` locations as profiles name lines: split strictly, with the line number bounded, since
// a profile is untrusted and its numbers reach loops and pages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace coz::analysis {

// The largest line number a location may name (DWARF's line numbers are 32-bit; no source has
// two billion lines).
inline constexpr uint32_t kMaxLineNumber = 2147483647;

// Splits "path/a.c:12" at its last ':' into the file and the line. False unless the file is not
// empty and the line is 1 to 10 decimal digits (no sign or space) from 0 to kMaxLineNumber.
bool split_location(std::string_view location, std::string* file, uint32_t* line);

}  // namespace coz::analysis
