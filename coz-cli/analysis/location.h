// `file:line` locations as profiles name lines: split once, where a profile's experiment enters
// the data model, by FILE:LINE's one parser (config/file_line.h), since a profile is untrusted and
// its numbers reach loops and pages. Everything after reads the parts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/file_line.h"

namespace coz::analysis {

// A line as a profile names it, "path/a.c:12", with its parts.
struct Location {
  std::string name;     // as the profile wrote it: lines are grouped, ranked and named by this
  std::string file;     // "path/a.c"; empty when `name` is no `file:line`
  uint32_t number = 0;  // 12; 0 when `name` is no `file:line`

  bool is_file_line() const { return !file.empty(); }
};

// `name` with its parts when parse_file_line takes it (is_file_line()); otherwise only its name
// is set (kNoLine, or a caller's own data).
Location parse_location(std::string_view name);

}  // namespace coz::analysis
