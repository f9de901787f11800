// Splitting FILE:LINE (see file_line.h).
#include "config/file_line.h"

namespace coz {

bool parse_file_line(std::string_view text, FileLine* out) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return false;
  }
  std::string_view digits = text.substr(colon + 1);
  if (digits.empty() || digits.size() > 10) {
    return false;
  }
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return false;
    }
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (n == 0 || n > kMaxLineNumber) {
    return false;
  }
  if (out) {
    out->file = std::string(text.substr(0, colon));
    out->line = static_cast<uint32_t>(n);
  }
  return true;
}

}  // namespace coz
