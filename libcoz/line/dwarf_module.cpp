// libcoz-dwarf.so: the line map's elfutils half, which the runtime loads only in a process with an
// object that may have debug information (dwarf_on_demand.h). Its one export is the entry point.
#include "line/dwarf_on_demand.h"

extern "C" __attribute__((visibility("default"))) void coz_dwarf_load_object_lines_v1(
    const coz::LoadedObject* object, const coz::Scope* scope, coz::LineTable* table,
    const std::string* debug_path, coz::ObjectLines** out) {
  try {  // nothing may cross the C boundary: an exception (no memory) reads as no lines
    *out = coz::load_object_lines(*object, *scope, table, *debug_path).release();
  } catch (...) {
    *out = nullptr;
  }
}

// The signature the runtime calls it with.
static_assert(std::is_same_v<decltype(&coz_dwarf_load_object_lines_v1), coz::DwarfLoadFunction>);
