// The runtime's way to line tables, with elfutils loaded only where it is needed.
//
// DwarfLines::load() answers for an object that surely has no debug information (/bin/true, a
// shell, a system library) from its ELF headers (lines_without_debug_info). For any other object
// it loads libcoz-dwarf.so, which lies beside libcoz.so (dlopen, bringing libdw, libelf and the
// compression libraries with it), and reads the line tables there; the module is unloaded when
// the DwarfLines goes, after a batch of objects. So a process of the run with nothing to map
// never loads them (about a third of a millisecond less in every short child a shell or a build
// driver starts), and one that maps its lines does not keep them (2 MiB of address space, which
// a program under `ulimit -v` would lose).
//
// Not thread-safe (one batch at a time: ProgramLines holds its lock); not async-signal-safe. The
// module and this library come from one build: the entry point's name carries the version of
// its signature.
#pragma once

#include <memory>
#include <string>

#include "line/line_map.h"

namespace coz {

// The module's one export: load_object_lines() with C linkage; writes a new ObjectLines to `out`.
using DwarfLoadFunction = void (*)(const LoadedObject* object, const Scope* scope, LineTable* table,
                                   const std::string* debug_path, ObjectLines** out);
inline constexpr const char* kDwarfModuleFile = "libcoz-dwarf.so";
inline constexpr const char* kDwarfModuleEntry = "coz_dwarf_load_object_lines_v1";

class DwarfLines {
 public:
  DwarfLines() = default;
  ~DwarfLines();
  DwarfLines(const DwarfLines&) = delete;
  DwarfLines& operator=(const DwarfLines&) = delete;

  // `object`'s lines, as load_object_lines() reads them, loading the module when first needed.
  // Fails (kCannotOpen, with what to do) when the module cannot be loaded.
  std::unique_ptr<ObjectLines> load(const LoadedObject& object, const Scope& scope,
                                    LineTable* table, const std::string& debug_path);

 private:
  void* module_ = nullptr;
  DwarfLoadFunction entry_ = nullptr;
  bool tried_ = false;
  std::string error_;  // why the module could not be loaded
};

}  // namespace coz
