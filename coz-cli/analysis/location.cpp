// `file:line` locations (see location.h).
#include "analysis/location.h"

namespace coz::analysis {

Location parse_location(std::string_view name) {
  Location l;
  l.name = std::string(name);
  FileLine at;
  if (parse_file_line(name, &at)) {
    l.file = std::move(at.file);
    l.number = at.line;
  }
  return l;
}

}  // namespace coz::analysis
