// Interned source lines: each (file, line) pair exists once per process, with a sample counter.
// Append-only; a SourceLine's address never changes, so lookups from signal handlers may hold
// SourceLine pointers. intern_file() and intern_line() take a mutex and must not be called from a
// signal handler; SourceLine::samples may be incremented from anywhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "line/pointer_table.h"

namespace coz {

struct SourceLine {
  const std::string* file;
  uint32_t line;
  // The last object load that met this line (cu_ranges.cpp counts each line once per load).
  std::atomic<uint32_t> loaded_by{0};
  // The line's name across processes (an experiment's selected line, in shared memory): a hash
  // of `file:line`, never 0. Every process of a run names the same source line alike, whatever
  // its executable and wherever the line's code is loaded.
  uint64_t key;
  std::atomic<uint64_t> samples{0};  // taken while running
  std::atomic<uint64_t> blocked{0};  // blocked samples: waits in blocking calls (blocked_clock.h)

  SourceLine(const std::string* f, uint32_t l) : file(f), line(l), key(key_of(*f, l)) {}
  std::string name() const { return *file + ":" + std::to_string(line); }
  // The key of the line `line` of `file` (FNV-1a over "file:line").
  static uint64_t key_of(std::string_view file, uint32_t line);
};

class LineTable {
 public:
  // Interns the file name; the returned pointer is stable.
  const std::string* intern_file(std::string_view file);
  // Interns a line of an interned file.
  SourceLine* intern_line(const std::string* file, uint32_t line);

  // The line whose file is `file` or ends with "/" + `file`; nullptr when none or ambiguous
  // (`*ambiguous` set true then).
  SourceLine* find(std::string_view file, uint32_t line, bool* ambiguous = nullptr) const;

  // Whether some line of the table is in `file` (matched as find() does).
  bool has_file(std::string_view file) const;

  // Visits every line (under the table's lock).
  void for_each(const std::function<void(const SourceLine&)>& visit) const;
  // Sets every line's counts to 0 (a forked child counts its own).
  void clear_counts();
  // Held across fork() (Runtime::before_fork): the child goes on using the table.
  void before_fork() const { mutex_.lock(); }
  void after_fork() const { mutex_.unlock(); }
  size_t size() const;
  // A new number for one load of an object's lines (never 0: SourceLine::loaded_by's mark of a
  // line no load has seen). Kept here, in the table's memory, not in the code that reads DWARF,
  // which the runtime unloads between batches (line/dwarf_on_demand.h).
  uint32_t begin_load() { return loads_.fetch_add(1, std::memory_order_relaxed) + 1; }

 private:
  std::atomic<uint32_t> loads_{0};
  mutable std::mutex mutex_;
  std::deque<std::string> files_;
  std::unordered_map<std::string_view, const std::string*> file_index_;
  std::deque<SourceLine> lines_;
  PointerTable<SourceLine> line_index_;
  std::unordered_map<const std::string*, uint32_t> file_ids_;
};

// Runtime addresses [lo, hi) that belong to `line` (what the line map looks addresses up in).
struct AddressRange {
  uintptr_t lo;  // first address (runtime)
  uintptr_t hi;  // one past the last address
  SourceLine* line;
};

}  // namespace coz
