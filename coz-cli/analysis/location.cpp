// Strict `file:line` splitting (see location.h).
#include "analysis/location.h"

namespace coz::analysis {

bool split_location(std::string_view location, std::string* file, uint32_t* line) {
  size_t colon = location.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return false;
  }
  std::string_view digits = location.substr(colon + 1);
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
  if (n > kMaxLineNumber) {
    return false;
  }
  *file = std::string(location.substr(0, colon));
  *line = static_cast<uint32_t>(n);
  return true;
}

}  // namespace coz::analysis
