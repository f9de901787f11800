// Messages as lines (see message.h).
#include "remote/message.h"

namespace coz::remote {
namespace {

bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 32) {
    return false;
  }
  for (char c : s) {
    if (!plain(c)) {
      return false;
    }
  }
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

void escape(std::string_view value, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : value) {
    if (c <= ' ' || c == '%' || c == '=' || c == 0x7f) {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

bool unescape(std::string_view value, std::string* out) {
  for (size_t i = 0; i < value.size(); i++) {
    if (value[i] != '%') {
      out->push_back(value[i]);
      continue;
    }
    int hi = i + 2 < value.size() ? hex_digit(value[i + 1]) : -1;
    int lo = hi >= 0 ? hex_digit(value[i + 2]) : -1;
    if (lo < 0) {
      return false;
    }
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

}  // namespace

const std::string* Message::find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

std::string Message::text(std::string_view key) const {
  const std::string* v = find(key);
  return v ? *v : std::string();
}

bool Message::number(std::string_view key, uint64_t max, uint64_t* out) const {
  const std::string* v = find(key);
  if (!v || v->empty() || v->size() > 20) {
    return false;
  }
  uint64_t n = 0;
  for (char c : *v) {
    if (c < '0' || c > '9') {
      return false;
    }
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (n > (UINT64_MAX - digit) / 10) {
      return false;
    }
    n = n * 10 + digit;
  }
  if (n > max) {
    return false;
  }
  *out = n;
  return true;
}

std::string encode(const Message& m) {
  std::string out = m.kind;
  for (const auto& [k, v] : m.fields) {
    out.push_back(' ');
    out += k;
    out.push_back('=');
    escape(v, &out);
  }
  out.push_back('\n');
  return out;
}

bool decode(std::string_view line, Message* m, std::string* why) {
  *m = Message();
  if (line.empty() || line.size() > kMaxLine) {
    *why = line.empty() ? "an empty message" : "a message over 64 KiB";
    return false;
  }
  size_t at = line.find(' ');
  std::string_view kind = line.substr(0, at);
  if (!is_name(kind)) {
    *why = "a message whose kind is not a word";
    return false;
  }
  m->kind = std::string(kind);
  while (at != std::string_view::npos) {
    size_t next = line.find(' ', at + 1);
    std::string_view field =
        line.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    size_t eq = field.find('=');
    std::string value;
    if (eq == std::string_view::npos || !is_name(field.substr(0, eq)) ||
        !unescape(field.substr(eq + 1), &value)) {
      *why = "a " + m->kind + " message with a field that is not key=value";
      return false;
    }
    if (m->fields.size() == kMaxFields) {
      *why = "a " + m->kind + " message with over 16 fields";
      return false;
    }
    m->fields.emplace_back(std::string(field.substr(0, eq)), std::move(value));
    at = next;
  }
  return true;
}

int LineSplitter::next(std::string* line) {
  size_t end = pending_.find('\n', used_);
  if (end == std::string::npos) {
    if (buffered() > kMaxLine) {
      return -1;
    }
    if (used_ > 0 && used_ == pending_.size()) {
      pending_.clear();
      used_ = 0;
    }
    return 0;
  }
  if (end - used_ > kMaxLine) {
    return -1;
  }
  line->assign(pending_, used_, end - used_);
  used_ = end + 1;
  if (used_ > 65536 && used_ * 2 > pending_.size()) {  // keep the buffer from growing forever
    pending_.erase(0, used_);
    used_ = 0;
  }
  return 1;
}

}  // namespace coz::remote
