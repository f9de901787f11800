// In-scope address ranges from the line tables of an object's compilation units, at runtime
// addresses, with inlined library code credited to the user's call line (inline_calls.h); and
// the rules that name a unit's source files. Used by line_map.cpp when it loads an object.
// Threads: one CuRanges per load, used by one thread.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "line/line_table.h"
#include "line/scope.h"

namespace coz {

// Whether the object's debug sections are zstd-compressed (libdw on Debian 12 cannot read them).
bool has_zstd_debug_sections(Elf* elf);
// Whether any of its sections is compressed (SHF_COMPRESSED, or the old .zdebug names).
bool has_compressed_debug_sections(Elf* elf);
// A source file's name as the profile gives it (relative names joined to the unit's directory,
// "/./" and "dir/../" collapsed).
std::string source_name(const char* src, const char* comp_dir);
// The unit's DW_AT_comp_dir, or nullptr.
const char* comp_dir_of(Dwarf_Die* cudie);

class CuRanges {
 public:
  // `elf_bias`: ELF address -> runtime address; `dwarf_bias`: DWARF address -> runtime address.
  CuRanges(const Scope& scope, LineTable* table, Elf* elf, Dwfl_Module* module, uintptr_t elf_bias,
           uintptr_t dwarf_bias);
  ~CuRanges();
  CuRanges(const CuRanges&) = delete;
  CuRanges& operator=(const CuRanges&) = delete;

  // Appends the unit's in-scope ranges (rows out of scope inlined into an in-scope line count
  // as that line; rows in discarded code are dropped, ranges are clipped to their segment).
  void add_cu(Dwarf_Die* cudie, Dwarf_Lines* lines, size_t count,
              std::vector<AddressRange>* ranges);
  // Distinct source lines seen in scope so far.
  size_t distinct_lines() const;
  // Drops what it keeps of the names libdw gave it, before the session that holds them ends
  // (the next units may come from another session).
  void forget_names();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coz
