// The profile format: the one module that writes and reads `profile.coz`, used by the runtime
// (writer) and the CLI and tests (reader). Format version 1 is Coz 0.2's tab-separated format:
// one record per line, `type<TAB>key=value<TAB>...`. Extra keys are allowed; readers ignore keys
// they do not know, so Coz's own tools can read what we write and we can read what Coz writes.
//
// Concurrency: a ProfileWriter is used by one thread at a time (the profiler thread, or the
// exiting thread after the profiler thread has stopped). Each block of records (an experiment
// with its points, the final samples) goes out in a single write(2) on an O_APPEND descriptor,
// so blocks from several processes appending to one file never interleave.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  kArrivalPoint,   // arrivals at a COZ_ARRIVAL (or COZ_BEGIN) point in one experiment
  kWarning,        // something the user must know about the run (e.g. no arrival point)
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

// Appends blocks of records to a profile file.
class ProfileWriter {
 public:
  ProfileWriter() = default;
  ~ProfileWriter();
  ProfileWriter(ProfileWriter&& other) noexcept;
  ProfileWriter& operator=(ProfileWriter&& other) noexcept;
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // Opens `path` for appending, creating it. On failure returns false and sets `error` to a
  // sentence that names the path and the reason.
  bool open(const std::string& path, std::string* error);
  bool is_open() const { return fd_ >= 0; }

  // Writes the block in one write(2). Returns false if the write failed.
  bool write_block(const RecordBuilder& block);

  void close();

 private:
  int fd_ = -1;
};

struct ParseError {
  std::string file;
  size_t line = 0;
  std::string message;
};

// Parses one line: a tab-separated record, or a JSON-lines record as Coz's newer versions write
// (`{"type":"experiment","selected":"a.c:3",...}`). Returns false (and sets `message`) for a
// malformed line. Blank lines parse as kUnknown records with an empty type, for the caller to skip.
bool parse_record(std::string_view line, Record* out, std::string* message);

// Reads every record of a profile file. A malformed or truncated line is reported in `errors`
// and skipped; everything before and after it is kept. Returns false if the file cannot be read.
bool read_profile(const std::string& path, std::vector<Record>* records,
                  std::vector<ParseError>* errors);

}  // namespace coz
