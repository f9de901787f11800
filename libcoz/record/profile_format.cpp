// Building records of the tab-separated profile format (see profile_format.h), for the runtime's
// writer; parsing them is record_parser.cpp's, which only the CLI links.
#include "record/profile_format.h"

#include <cinttypes>
#include <cstdio>

namespace coz {
namespace {

void append_escaped(std::string* out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out->append("\\\\");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        out->push_back(c);
    }
  }
}

}  // namespace

RecordBuilder& RecordBuilder::begin(std::string_view type) {
  if (!text_.empty() && text_.back() != '\n') {
    text_.push_back('\n');
  }
  text_.append(type);
  return *this;
}

RecordBuilder& RecordBuilder::field(std::string_view key, std::string_view value) {
  text_.push_back('\t');
  text_.append(key);
  text_.push_back('=');
  append_escaped(&text_, value);
  return *this;
}

RecordBuilder& RecordBuilder::field(std::string_view key, uint64_t value) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRIu64, value);
  return field(key, std::string_view(buf));
}

RecordBuilder& RecordBuilder::field(std::string_view key, double value, int decimals) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return field(key, std::string_view(buf));
}

std::string format_record(const Record& record) {
  RecordBuilder b;
  b.begin(record.type);
  for (const RecordField& f : record.fields) {
    b.field(f.key, std::string_view(f.value));
  }
  return b.text();
}

}  // namespace coz
