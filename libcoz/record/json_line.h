// Coz's newer JSON-lines profiles: one flat object per line, `{"type":"experiment",...}`.
// Internal to the record module; parse_record() calls it for lines that start with '{'.
#pragma once

#include <string>
#include <string_view>

#include "record/profile_format.h"

namespace coz {

// Parses one JSON object into `out`: "type" becomes the record's type, every other member a
// field holding its text (strings unescaped, numbers as written, null as empty). Values must be
// strings, JSON numbers, booleans or null. Returns false and sets `message` otherwise.
bool parse_json_record(std::string_view line, Record* out, std::string* message);

}  // namespace coz
