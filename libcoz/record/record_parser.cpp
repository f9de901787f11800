// Parsing records of a profile (see profile_format.h): the tab-separated format and Coz's
// JSON-lines. Only readers link this (the CLI, tests); the runtime only writes.
#include <errno.h>

#include <cmath>
#include <cstdlib>

#include "record/json_line.h"
#include "record/profile_format.h"
#include "record/vocabulary.h"

namespace coz {
namespace {

struct KindName {
  RecordKind kind;
  std::string_view type;
};

constexpr KindName kKinds[] = {
    {RecordKind::kStartup, vocab::kStartup},
    {RecordKind::kExperiment, vocab::kExperiment},
    {RecordKind::kThroughputPoint, vocab::kThroughputPoint},
    {RecordKind::kLatencyPoint, vocab::kLatencyPoint},
    {RecordKind::kSamples, vocab::kSamples},
    {RecordKind::kRuntime, vocab::kRuntime},
    {RecordKind::kArrivalPoint, vocab::kArrivalPoint},
    {RecordKind::kWarning, vocab::kWarning},
    {RecordKind::kProcess, vocab::kProcess},
    {RecordKind::kShutdown, vocab::kCozShutdown},
    {RecordKind::kCounts, vocab::kCounts},
};

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
  type = vocab::canonical_type(type);
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

bool parse_record(std::string_view line, Record* out, std::string* message) {
  *out = Record();
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  if (line.empty()) {
    return true;
  }
  if (line.front() == '{') {
    if (!parse_json_record(line, out, message)) {
      return false;
    }
    if (out->fields.size() > kMaxRecordFields) {
      *message = "more than " + std::to_string(kMaxRecordFields) + " fields in one record";
      return false;
    }
    return true;
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
    if (out->fields.size() == kMaxRecordFields) {
      *message = "more than " + std::to_string(kMaxRecordFields) + " fields in one record";
      return false;
    }
    size_t next = line.find('\t', pos + 1);
    std::string_view item =
        line.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      *message = "field '" + std::string(item.substr(0, 40)) + (item.size() > 40 ? "...' " : "' ") +
                 "is not key=value";
      return false;
    }
    out->fields.push_back(
        {std::string(vocab::canonical_key(item.substr(0, eq))), unescape(item.substr(eq + 1))});
    pos = next;
  }
  return true;
}

}  // namespace coz
