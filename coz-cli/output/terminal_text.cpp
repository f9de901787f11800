// Escaping control characters for the terminal (see terminal_text.h).
#include "output/terminal_text.h"

#include <cstdio>

namespace coz::output {
namespace {

// The length of the valid UTF-8 sequence at `at` (1-4), or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t at) {
  unsigned char c = static_cast<unsigned char>(s[at]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || at + n > s.size()) {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((static_cast<unsigned char>(s[at + i]) & 0xc0) != 0x80) {
      return 0;
    }
  }
  unsigned char c1 = static_cast<unsigned char>(s[at + 1 < s.size() ? at + 1 : at]);
  bool overlong = (n == 2 && c < 0xc2) || (n == 3 && c == 0xe0 && c1 < 0xa0) ||
                  (n == 4 && c == 0xf0 && c1 < 0x90);
  bool beyond =
      (n == 3 && c == 0xed && c1 >= 0xa0) || (n == 4 && (c > 0xf4 || (c == 0xf4 && c1 >= 0x90)));
  return overlong || beyond ? 0 : n;
}

std::string escape(std::string_view text, bool keep_line_feeds) {
  std::string out;
  out.reserve(text.size());
  char buf[8];
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = utf8_length(text, i);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f) && !(keep_line_feeds && c == '\n'))) {
      snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      i++;
      continue;
    }
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      out += buf;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  return escape(text, false);
}

std::string terminal_safe_lines(std::string_view text) {
  return escape(text, true);
}

std::string wrap_words(const std::string& text, size_t width) {
  std::string out, line;
  size_t at = 0;
  while (at < text.size()) {
    size_t next = text.find(' ', at);
    std::string word = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
    at = next == std::string::npos ? text.size() : next + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

}  // namespace coz::output
