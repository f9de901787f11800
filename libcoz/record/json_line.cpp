// Parser for JSON-lines profile records (see json_line.h).
#include "record/json_line.h"

#include <cstdint>

#include "record/vocabulary.h"

namespace coz {
namespace {

// Coz's newer JSON-lines profiles: one flat object per line, `{"type":"experiment",...}`.
// Values are strings, numbers, booleans or null; each becomes a field holding its text.
class JsonLine {
 public:
  explicit JsonLine(std::string_view text) : s_(text) {}

  bool parse(Record* out, std::string* message) {
    skip_space();
    if (!eat('{')) {
      return fail(message, "a JSON record must be one object on one line");
    }
    skip_space();
    bool first = true;
    while (!eat('}')) {
      if (!first && !eat(',')) {
        return fail(message, "expected ',' or '}' in the JSON record");
      }
      first = false;
      skip_space();
      std::string key, value;
      if (!string(&key)) {
        return fail(message, "expected a quoted key in the JSON record");
      }
      skip_space();
      if (!eat(':')) {
        return fail(message, "expected ':' after \"" + key + "\"");
      }
      skip_space();
      if (!scalar(&value)) {
        return fail(message,
                    "the value of \"" + key + "\" is not a string, number, boolean or null");
      }
      skip_space();
      if (key == "type") {
        out->type = value;
      } else {
        out->fields.push_back({std::string(vocab::canonical_key(key)), value});
      }
    }
    skip_space();
    if (i_ != s_.size()) {
      return fail(message, "text after the end of the JSON record");
    }
    if (out->type.empty()) {
      return fail(message, "the JSON record has no \"type\"");
    }
    out->kind = record_kind_from_type(out->type);
    return true;
  }

 private:
  static bool fail(std::string* message, std::string text) {
    *message = std::move(text);
    return false;
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) {
      i_++;
    }
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      i_++;
      return true;
    }
    return false;
  }
  bool string(std::string* out) {
    if (!eat('"')) {
      return false;
    }
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') {
        return true;
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (i_ >= s_.size()) {
        return false;
      }
      char e = s_[i_++];
      switch (e) {
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'u': {
          uint32_t code;
          if (!hex4(&code)) {
            return false;
          }
          if (code >= 0xD800 && code < 0xDC00) {  // a surrogate pair: the second half follows
            uint32_t low;
            if (!eat('\\') || !eat('u') || !hex4(&low) || low < 0xDC00 || low >= 0xE000) {
              return false;
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            return false;
          }
          append_utf8(out, code);
          break;
        }
        default:
          out->push_back(e);
      }
    }
    return false;
  }
  bool scalar(std::string* out) {
    if (i_ < s_.size() && s_[i_] == '"') {
      return string(out);
    }
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ' ' && s_[i_] != '\t') {
      i_++;
    }
    std::string_view word = s_.substr(start, i_ - start);
    if (word == "true" || word == "false") {
      *out = std::string(word);
      return true;
    }
    if (word == "null") {
      out->clear();
      return true;
    }
    if (word.empty()) {
      return false;
    }
    if (!is_json_number(word)) {
      return false;
    }
    *out = std::string(word);
    return true;
  }

  // JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (no nan, inf or hex).
  static bool is_json_number(std::string_view w) {
    size_t i = 0;
    auto digits = [&]() {
      size_t start = i;
      while (i < w.size() && w[i] >= '0' && w[i] <= '9') {
        i++;
      }
      return i > start;
    };
    if (i < w.size() && w[i] == '-') {
      i++;
    }
    size_t first = i;
    if (!digits() || (w[first] == '0' && i - first > 1)) {
      return false;
    }
    if (i < w.size() && w[i] == '.') {
      i++;
      if (!digits()) {
        return false;
      }
    }
    if (i < w.size() && (w[i] == 'e' || w[i] == 'E')) {
      i++;
      if (i < w.size() && (w[i] == '+' || w[i] == '-')) {
        i++;
      }
      if (!digits()) {
        return false;
      }
    }
    return i == w.size();
  }

  bool hex4(uint32_t* code) {
    if (i_ + 4 > s_.size()) {
      return false;
    }
    *code = 0;
    for (size_t k = 0; k < 4; k++) {
      char c = s_[i_++];
      int v = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (v < 0) {
        return false;
      }
      *code = *code * 16 + static_cast<uint32_t>(v);
    }
    return true;
  }

  static void append_utf8(std::string* out, uint32_t code) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

bool parse_json_record(std::string_view line, Record* out, std::string* message) {
  return JsonLine(line).parse(out, message);
}

}  // namespace coz
