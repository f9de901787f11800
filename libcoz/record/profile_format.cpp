// Writer and reader for the tab-separated profile format (see profile_format.h).
#include "record/profile_format.h"

#include "record/json_line.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace coz {
namespace {

struct KindName {
  RecordKind kind;
  std::string_view type;
};

constexpr KindName kKinds[] = {
    {RecordKind::kStartup, "startup"},
    {RecordKind::kExperiment, "experiment"},
    {RecordKind::kThroughputPoint, "throughput-point"},
    {RecordKind::kLatencyPoint, "latency-point"},
    {RecordKind::kSamples, "samples"},
    {RecordKind::kRuntime, "runtime"},
    {RecordKind::kArrivalPoint, "arrival-point"},
    {RecordKind::kWarning, "warning"},
    {RecordKind::kThroughputPoint, "progress-point"},  // Coz 0.1's name for a throughput point
};

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

std::string unescape(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); i++) {
    char c = value[i];
    if (c == '\\' && i + 1 < value.size()) {
      char n = value[++i];
      out.push_back(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

RecordKind record_kind_from_type(std::string_view type) {
  for (const KindName& k : kKinds) {
    if (k.type == type) {
      return k.kind;
    }
  }
  return RecordKind::kUnknown;
}

const std::string* Record::find(std::string_view key) const {
  for (const RecordField& f : fields) {
    if (f.key == key) {
      return &f.value;
    }
  }
  return nullptr;
}

std::string Record::text(std::string_view key) const {
  const std::string* v = find(key);
  return v ? *v : std::string();
}

uint64_t Record::u64(std::string_view key, uint64_t fallback) const {
  const std::string* v = find(key);
  if (!v || v->empty()) {
    return fallback;
  }
  char* end = nullptr;
  errno = 0;
  unsigned long long n = strtoull(v->c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || (*v)[0] == '-') {
    return fallback;
  }
  return n;
}

double Record::real(std::string_view key, double fallback) const {
  const std::string* v = find(key);
  if (!v || v->empty()) {
    return fallback;
  }
  // Decimal numbers only: no nan, inf or hexadecimal, which strtod would also take.
  char first = (*v)[0];
  if (!((first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.') ||
      v->find_first_of("xXnN") != std::string::npos) {
    return fallback;
  }
  char* end = nullptr;
  double d = strtod(v->c_str(), &end);
  return *end == '\0' && std::isfinite(d) ? d : fallback;
}

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

ProfileWriter::~ProfileWriter() { close(); }

ProfileWriter::ProfileWriter(ProfileWriter&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

ProfileWriter& ProfileWriter::operator=(ProfileWriter&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

bool ProfileWriter::open(const std::string& path, std::string* error) {
  close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    if (error) {
      *error = "cannot write the profile to " + path + ": " + strerror(errno);
    }
    return false;
  }
  return true;
}

bool ProfileWriter::write_block(const RecordBuilder& block) {
  if (fd_ < 0) {
    return false;
  }
  std::string text = block.text();
  if (text.empty()) {
    return true;
  }
  if (text.back() != '\n') {
    text.push_back('\n');
  }
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

void ProfileWriter::close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

bool parse_record(std::string_view line, Record* out, std::string* message) {
  *out = Record();
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  if (line.empty()) {
    return true;
  }
  if (line.front() == '{') {
    return parse_json_record(line, out, message);
  }
  size_t pos = line.find('\t');
  std::string_view type = line.substr(0, pos);
  out->type = std::string(type);
  out->kind = record_kind_from_type(type);
  bool type_ok = !type.empty();
  for (char c : type) {
    type_ok = type_ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
  }
  if (!type_ok) {
    *message = "a record must start with its type (lowercase letters, digits, '-')";
    return false;
  }
  while (pos != std::string_view::npos) {
    size_t next = line.find('\t', pos + 1);
    std::string_view item = line.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      *message = "field '" + std::string(item) + "' is not key=value";
      return false;
    }
    out->fields.push_back({std::string(item.substr(0, eq)), unescape(item.substr(eq + 1))});
    pos = next;
  }
  return true;
}

bool read_profile(const std::string& path, std::vector<Record>* records,
                  std::vector<ParseError>* errors) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    number++;
    bool complete = !in.eof();  // the last line of a file cut short has no newline
    Record r;
    std::string message;
    if (!parse_record(line, &r, &message)) {
      errors->push_back({path, number, message});
      continue;
    }
    if (r.type.empty()) {
      continue;
    }
    if (!complete) {
      errors->push_back({path, number, "truncated record (no end of line)"});
      continue;
    }
    r.line = number;
    records->push_back(std::move(r));
  }
  return true;
}

}  // namespace coz
