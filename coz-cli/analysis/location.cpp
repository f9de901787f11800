// Strict `file:line` splitting (see location.h).
#include "analysis/location.h"

namespace coz::analysis {

Location parse_location(std::string_view name) {
  Location l;
  l.name = std::string(name);
  size_t colon = name.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return l;
  }
  std::string_view digits = name.substr(colon + 1);
  if (digits.empty() || digits.size() > 10) {
    return l;
  }
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return l;
    }
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (n > kMaxLineNumber) {
    return l;
  }
  l.file = std::string(name.substr(0, colon));
  l.number = static_cast<uint32_t>(n);
  return l;
}

}  // namespace coz::analysis
