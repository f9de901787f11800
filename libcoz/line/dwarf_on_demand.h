// The runtime's way to line tables, with elfutils loaded only where it is needed.
//
// load_lines() answers for an object that surely has no debug information (/bin/true, a shell, a
// system library) from its ELF headers (lines_without_debug_info). For any other object it loads
// libcoz-dwarf.so, which lies beside libcoz.so, once per process (dlopen, bringing libdw, libelf
// and the compression libraries with it), and reads the line tables there. So a process of the
// run with nothing to map never loads them: about a third of a millisecond and 2 MiB of address
// space less in every short child a shell or a build driver starts.
//
// Thread-safe; not async-signal-safe (it may call dlopen). The module and this library come from
// one build: the entry point's name carries the version of its signature.
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

// `object`'s lines, as load_object_lines() reads them, loading the module when first needed.
// Fails (kCannotOpen, with what to do) when the module cannot be loaded.
std::unique_ptr<ObjectLines> load_lines(const LoadedObject& object, const Scope& scope,
                                        LineTable* table, const std::string& debug_path);

// Whether this process has loaded the module (tests and --verbose).
bool dwarf_module_loaded();

}  // namespace coz
