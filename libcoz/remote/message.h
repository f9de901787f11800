// The messages of a run across programs (docs/across-hosts.md): one line each, `kind key=value
// ...`, values percent-encoded so that a space, `=`, `%` or a control character never breaks a
// line. Shared by the members (the runtime) and the coordinator (`coz coordinate`); pure, so a
// hostile line is refused here, with a reason, before anything acts on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coz::remote {

inline constexpr int kProtocolVersion = 1;
inline constexpr size_t kMaxLine = 64 * 1024;  // a profile record forwarded whole fits
inline constexpr size_t kMaxFields = 16;

struct Message {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> fields;

  Message() = default;
  explicit Message(std::string k) : kind(std::move(k)) {}
  Message& with(std::string key, std::string value) {
    fields.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Message& with(std::string key, uint64_t value) {
    return with(std::move(key), std::to_string(value));
  }
  // The value of `key`, or nullptr.
  const std::string* find(std::string_view key) const;
  std::string text(std::string_view key) const;
  // `key` as a whole number up to `max`; false when absent or not one.
  bool number(std::string_view key, uint64_t max, uint64_t* out) const;
};

// The message as one line, newline included.
std::string encode(const Message& m);
// One line (without its newline) as a message; false, with `why`, when it is not one: an empty
// or over-long line, a kind or key that is not lower-case letters, digits and `-`, a value with
// a bad escape, too many fields.
bool decode(std::string_view line, Message* m, std::string* why);

// Bytes from a socket, split into lines; a line over kMaxLine is an error (the peer is refused).
class LineSplitter {
 public:
  void append(const char* data, size_t n) { pending_.append(data, n); }
  // The next whole line (without its newline): 1; none yet: 0; a line too long: -1.
  int next(std::string* line);
  size_t buffered() const { return pending_.size() - used_; }

 private:
  std::string pending_;
  size_t used_ = 0;
};

}  // namespace coz::remote
