// A 64-bit ELF file's section headers and their names, read with pread: the cheap looks at an
// object that need no elfutils (whether it may have debug information, debug_precheck.h; what it
// imports, coz run's checks).
// Pure apart from reading the file; thread-safe.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace coz {

struct ElfSections {
  std::vector<Elf64_Shdr> headers;
  std::vector<char> names;  // the section-name string table, NUL-terminated
  // The name of `s`; empty when its offset lies outside the table.
  std::string_view name(const Elf64_Shdr& s) const {
    return s.sh_name < names.size() ? std::string_view(names.data() + s.sh_name)
                                    : std::string_view();
  }
};

// `n` bytes at `at` of the file open as `fd`; false on a short read.
bool read_at(int fd, void* out, size_t n, uint64_t at);
// The bytes of section `s`, at most `limit` of them; false when larger or unreadable.
bool read_section(int fd, const Elf64_Shdr& s, size_t limit, std::vector<unsigned char>* out);
// The section headers of the 64-bit ELF file open as `fd`; false when it is none (or they do
// not read as they should).
bool read_elf_sections(int fd, ElfSections* out);
// Whether the ELF file at `path` was linked by Go's toolchain (it has a .go.buildinfo or a
// .note.go.buildid section); false when it cannot be read.
bool is_go_binary(const char* path);

}  // namespace coz
