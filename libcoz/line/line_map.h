// Address -> source line map. Only line/ includes libdw headers (dwarf_lines.cpp, and the
// cu_ranges.* and inline_calls.h it is built from); the rest of the runtime never sees them.
// load_object_lines() and probe_debug_info() are dwarf_lines.cpp's (the coz_dwarf library, which
// links libdw); the runtime reaches the first through dwarf_on_demand.h.
//
// load_object_lines() reads one ELF object's DWARF line tables with elfutils (DWARF 2-5, PIE and
// non-PIE, zlib-compressed sections, separate debug files by build-id and .gnu_debuglink) and
// turns the in-scope lines into sorted address ranges at the object's load address.
//
// LineMap holds the ranges of every object in binary scope. Objects are added (at start-up and
// when the profiler thread sees a library loaded by dlopen) under a mutex; lookup() takes no lock
// and allocates nothing, so signal handlers may call it. Objects are never removed: a dlclose'd
// library's ranges stay valid memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "line/line_table.h"
#include "line/scope.h"

namespace coz {

// An object as the dynamic loader mapped it.
struct LoadedObject {
  std::string path;    // file on disk
  uintptr_t bias = 0;  // load bias: runtime address = link-time address + bias
  bool is_main = false;
};

enum class DebugInfoStatus {
  kOk,           // line tables read (possibly with no line in source scope)
  kNoDebugInfo,  // no .debug_line here nor in a separate debug file
  kUnsupported,  // debug info present but unreadable here (e.g. zstd without libelf support)
  kCannotOpen,   // the file could not be opened as ELF
};

struct ObjectLines {
  LoadedObject object;
  DebugInfoStatus status = DebugInfoStatus::kCannotOpen;
  std::string message;               // why status is not kOk, for the user
  std::string debug_file;            // where the line tables came from
  size_t lines_in_scope = 0;         // distinct source lines in source scope
  std::vector<AddressRange> ranges;  // sorted by lo, non-overlapping
  uintptr_t lo = 0, hi = 0;          // span of ranges

  const AddressRange* lookup(uintptr_t addr) const;
};

// Reads `object`'s line tables. `debug_path` adds directories to search for separate debug files
// (colon-separated, in elfutils' debuginfo-path syntax); empty means the system default.
//
// libdw keeps every unit's line table, and the pages of the sections it read, until its session
// ends: after about `rows_per_session` line-table rows the session is ended and a new one resumes
// at the next unit, so what it holds at once stays bounded however large the DWARF (not with
// compressed sections, which each session would inflate again). The ranges are the same however
// the units are split.
inline constexpr size_t kRowsPerSession = size_t{1} << 18;
std::unique_ptr<ObjectLines> load_object_lines(const LoadedObject& object, const Scope& scope,
                                               LineTable* table, const std::string& debug_path = "",
                                               size_t rows_per_session = kRowsPerSession);

struct DebugProbe {
  DebugInfoStatus status;
  std::string message;
  bool source_in_scope;  // some source file of the object is in source scope
};

// A quick check, without building ranges: does `object` have line tables, and does any of its
// source files fall in source scope? Stops at the first match.
DebugProbe probe_debug_info(const LoadedObject& object, const Scope& scope,
                            const std::string& debug_path = "");

// Where separate debug files are looked for: the user's directories (`debug_path`,
// colon-separated), then beside the object, its .debug/, and /usr/lib/debug.
std::string debug_search_path(const std::string& debug_path);
// "PATH has WHAT; compile it with -g".
std::string missing_lines_message(const LoadedObject& object, const char* what);
// The lines of an object that surely has no debug information (may_have_debug_info(), without
// elfutils): none, with the reason; nullptr when it may have some.
std::unique_ptr<ObjectLines> lines_without_debug_info(const LoadedObject& object,
                                                      const std::string& debug_path);

// A number that changes whenever the dynamic loader maps or unmaps an object.
uint64_t loaded_objects_generation();

// Calls `visit` for every object the dynamic loader has mapped now (main executable first), each
// library named by its path with links resolved (realpath: a readlink per component). Without
// `libraries`, for the main executable only (a binary scope of MAIN needs no more).
void for_each_loaded_object(void (*visit)(const LoadedObject&, void*), void* context,
                            bool libraries = true);

class LineMap {
 public:
  LineMap() = default;
  ~LineMap();
  LineMap(const LineMap&) = delete;
  LineMap& operator=(const LineMap&) = delete;

  // Publishes an object's ranges for lookup.
  void add(std::unique_ptr<ObjectLines> object);
  // True if an object with this path and bias was already added.
  bool contains(const std::string& path, uintptr_t bias) const;

  // The in-scope range holding `addr`, or nullptr. Async-signal-safe.
  const AddressRange* lookup(uintptr_t addr) const;

  // Visits the objects added so far.
  template <typename F>
  void for_each_object(F&& visit) const {
    for (const Node* n = head_.load(std::memory_order_acquire); n; n = n->next) {
      visit(*n->object);
    }
  }

 private:
  struct Node {
    std::unique_ptr<ObjectLines> object;
    Node* next;
  };
  std::atomic<Node*> head_{nullptr};
  mutable std::mutex add_mutex_;
};

}  // namespace coz
