// `file:line` locations as profiles name lines: split once, where a profile's experiment enters
// the data model, strictly and with the line number bounded, since a profile is untrusted and its
// numbers reach loops and pages. Everything after reads the parts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace coz::analysis {

// The largest line number a location may name (DWARF's line numbers are 32-bit; no source has
// two billion lines).
inline constexpr uint32_t kMaxLineNumber = 2147483647;

// A line as a profile names it, "path/a.c:12", with its parts.
struct Location {
  std::string name;     // as the profile wrote it: lines are grouped, ranked and named by this
  std::string file;     // "path/a.c"; empty when `name` is no `file:line`
  uint32_t number = 0;  // 12; 0 when `name` is no `file:line`

  bool is_file_line() const { return !file.empty(); }
};

// `name` split at its last ':' into the file and the line. It is a `file:line` (is_file_line())
// when the file is not empty and the line is 1 to 10 decimal digits (no sign or space) from 0 to
// kMaxLineNumber; otherwise only its name is set (kNoLine, or a caller's own data).
Location parse_location(std::string_view name);

}  // namespace coz::analysis
