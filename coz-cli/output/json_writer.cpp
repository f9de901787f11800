// Streaming JSON writer (see json_writer.h).
#include "output/json_writer.h"

#include <cmath>
#include <cstdio>

namespace coz::output {

void JsonWriter::item(std::string_view key) {
  if (!first_.empty()) {
    if (!first_.back()) {
      out_.push_back(',');
    }
    first_.back() = false;
    out_.push_back('\n');
    out_.append(2 * first_.size(), ' ');
  }
  if (!key.empty()) {
    string(key);
    out_.append(": ");
  }
}

void JsonWriter::string(std::string_view s) {
  out_.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out_.append("\\\"");
        break;
      case '\\':
        out_.append("\\\\");
        break;
      case '\n':
        out_.append("\\n");
        break;
      case '\t':
        out_.append("\\t");
        break;
      case '\r':
        out_.append("\\r");
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out_.append(buf);
        } else {
          out_.push_back(static_cast<char>(c));
        }
    }
  }
  out_.push_back('"');
}

void JsonWriter::open(std::string_view key, char bracket) {
  item(key);
  out_.push_back(bracket);
  first_.push_back(true);
}

void JsonWriter::close(char bracket) {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    out_.push_back('\n');
    out_.append(2 * first_.size(), ' ');
  }
  out_.push_back(bracket);
  if (first_.empty()) {
    out_.push_back('\n');
  }
}

JsonWriter& JsonWriter::begin_object(std::string_view key) {
  open(key, '{');
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array(std::string_view key) {
  open(key, '[');
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, std::string_view text) {
  item(key);
  string(text);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, double number) {
  if (!std::isfinite(number)) {
    return null(key);
  }
  item(key);
  char buf[32];
  if (number == std::floor(number) && std::fabs(number) < 1e15) {
    snprintf(buf, sizeof buf, "%.0f", number == 0 ? 0.0 : number);  // counts, ns, seeds: exact
  } else {
    // Six significant digits: enough for any speedup or rate, and stable for golden files.
    snprintf(buf, sizeof buf, "%.6g", number);
  }
  out_.append(buf);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, size_t count) {
  item(key);
  out_.append(std::to_string(count));
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, bool flag) {
  item(key);
  out_.append(flag ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null(std::string_view key) {
  item(key);
  out_.append("null");
  return *this;
}

}  // namespace coz::output
