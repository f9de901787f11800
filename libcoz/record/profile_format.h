// The profile format: the one module that writes and reads `profile.coz`, used by the runtime
// (writer) and the CLI and tests (reader). Format version 1 is Coz 0.2's tab-separated format:
// one record per line, `type<TAB>key=value<TAB>...`. Extra keys are allowed; readers ignore keys
// they do not know, so Coz's own tools can read what we write and we can read what Coz writes.
//
// Record types and keys are named in vocabulary.h; the writer is in profile_writer.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "record/vocabulary.h"

namespace coz {

inline constexpr int kProfileFormatVersion = 1;
// The `selected` of an experiment that tests no line: load amplification alone (`--end-to-end
// --fixed-speedup 0` with amplification and no `--fixed-line`). It counts only for throughput
// and latency against load.
inline constexpr const char* kNoLine = "(no line)";

enum class RecordKind {
  kStartup,
  kExperiment,
  kThroughputPoint,
  kLatencyPoint,
  kSamples,
  kRuntime,
  kArrivalPoint,  // arrivals at a COZ_ARRIVAL (or COZ_BEGIN) point in one experiment
  kWarning,       // something the user must know about the run (e.g. no arrival point)
  kProcess,       // a child process the runtime followed, joining the run its root began
  kShutdown,      // Coz's own end-of-run record: nothing to read in it
  kCounts,        // a process's counts in `coz compare`'s file (vocabulary.h), not in a profile
  kUnknown,
};

struct RecordField {
  std::string key;
  std::string value;
};

// One parsed line of a profile.
struct Record {
  RecordKind kind = RecordKind::kUnknown;
  std::string type;
  std::vector<RecordField> fields;
  size_t line = 0;  // line number in its file, set by read_profile

  // The value of `key`, or nullptr.
  const std::string* find(std::string_view key) const;
  std::string text(std::string_view key) const;
  // The value of `key` as a number; `fallback` when absent or not a number.
  uint64_t u64(std::string_view key, uint64_t fallback = 0) const;
  double real(std::string_view key, double fallback = 0) const;
};

RecordKind record_kind_from_type(std::string_view type);

// Builds the text of one or more records; values are escaped so a record stays on one line.
class RecordBuilder {
 public:
  RecordBuilder& begin(std::string_view type);
  RecordBuilder& field(std::string_view key, std::string_view value);
  RecordBuilder& field(std::string_view key, uint64_t value);
  RecordBuilder& field(std::string_view key, double value, int decimals);
  const std::string& text() const { return text_; }
  void clear() { text_.clear(); }

 private:
  std::string text_;
};

// The text of `record` as RecordBuilder writes it (its type, then its fields in order, values
// escaped), without a newline: a parsed record written back is the line it was parsed from.
std::string format_record(const Record& record);

struct ParseError {
  std::string file;
  size_t line = 0;
  std::string message;
};

// Parses one line: a tab-separated record, or a JSON-lines record as Coz's newer versions write
// (`{"type":"experiment","selected":"a.c:3",...}`). Returns false (and sets `message`) for a
// malformed line. Blank lines parse as kUnknown records with an empty type, for the caller to skip.
bool parse_record(std::string_view line, Record* out, std::string* message);

// A profile is untrusted input (it may be anyone's file, or not a profile at all), so readers
// hold to these bounds. A longer line is reported as "record too long" and skipped without being
// held in memory; a larger file, or one with more records, is refused with a message saying what
// to do. Real profiles stay far below them (about 1.5 MB per hour of profiling at the default
// experiment length).
inline constexpr uint64_t kMaxProfileBytes = uint64_t{256} << 20;  // per file
inline constexpr size_t kMaxProfileRecords = 4'000'000;            // per file
inline constexpr size_t kMaxRecordBytes = size_t{1} << 20;         // one line
inline constexpr size_t kMaxRecordFields = 64;                     // key=value fields in one record
inline constexpr size_t kMaxListedErrors = 1000;                   // per file; the rest are counted

// Streams the records of a profile file from byte `offset` on: calls `on_record` for each
// complete record and `on_error` for each malformed, cut-short or overlong line (skipped;
// everything before and after it is kept). Only regular files are read, so a device, a FIFO or a
// directory gives an error instead of a hang. Returns false, with `error` set to one sentence
// naming the file and what to do, when the file cannot be read or passes the bounds above.
bool read_profile_records(const std::string& path, const std::function<void(Record&&)>& on_record,
                          const std::function<void(ParseError&&)>& on_error, std::string* error,
                          uint64_t offset = 0);

// The same for a profile already in memory (the viewer's reader, compiled to WebAssembly, gets
// the bytes of a file the user picked): `name` stands for the path in messages.
bool read_profile_text(const std::string& name, std::string_view text,
                       const std::function<void(Record&&)>& on_record,
                       const std::function<void(ParseError&&)>& on_error, std::string* error);

// Reads every record of a profile file into `records` (see read_profile_records); at most
// kMaxListedErrors lines are listed in `errors`, then one line counting the rest.
bool read_profile(const std::string& path, std::vector<Record>* records,
                  std::vector<ParseError>* errors, std::string* error = nullptr,
                  uint64_t offset = 0);

}  // namespace coz
