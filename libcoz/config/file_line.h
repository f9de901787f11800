// FILE:LINE, the one way a source line is named in options, in messages between programs and in
// profiles: split at the last ':' and checked strictly, once, here. Pure; used by the runtime,
// `coz run`, `coz coordinate` and the analysis alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace coz {

// The largest line number a FILE:LINE may name (DWARF's line numbers are 32-bit; no source has
// two billion lines). Line numbers start at 1.
inline constexpr uint32_t kMaxLineNumber = 2147483647;

// What follows a value that is not FILE:LINE in a message: "--fixed-line main.c " + this.
inline constexpr const char* kNotFileLine = "is not FILE:LINE (for example main.c:42)";

// "path/a.c:12" in its parts.
struct FileLine {
  std::string file;   // "path/a.c" (it may hold ':' itself: only the last one splits)
  uint32_t line = 0;  // 12
};

// True when `text` is FILE:LINE: split at its last ':', the file is not empty and the line is 1
// to 10 decimal digits (no sign, space or anything after them) from 1 to kMaxLineNumber. Sets
// `out` (when given) only then.
bool parse_file_line(std::string_view text, FileLine* out = nullptr);

}  // namespace coz
