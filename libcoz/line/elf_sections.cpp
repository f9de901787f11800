// A 64-bit ELF file's section headers (see elf_sections.h).
#include "line/elf_sections.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "base/unique_fd.h"

namespace coz {

bool read_at(int fd, void* out, size_t n, uint64_t at) {
  return pread(fd, out, n, static_cast<off_t>(at)) == static_cast<ssize_t>(n);
}

bool read_section(int fd, const Elf64_Shdr& s, size_t limit, std::vector<unsigned char>* out) {
  if (s.sh_size > limit) {
    return false;
  }
  out->resize(s.sh_size);
  return read_at(fd, out->data(), out->size(), s.sh_offset);
}

bool read_elf_sections(int fd, ElfSections* out) {
  Elf64_Ehdr eh;
  if (!read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum) {
    return false;
  }
  out->headers.resize(eh.e_shnum);
  if (!read_at(fd, out->headers.data(), out->headers.size() * sizeof(Elf64_Shdr), eh.e_shoff)) {
    return false;
  }
  const Elf64_Shdr& names = out->headers[eh.e_shstrndx];
  if (names.sh_size == 0 || names.sh_size > (1u << 20)) {
    return false;
  }
  out->names.assign(names.sh_size + 1, '\0');
  return read_at(fd, out->names.data(), names.sh_size, names.sh_offset);
}

bool is_go_binary(const char* path) {
  UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
  ElfSections elf;
  if (fd.get() < 0 || !read_elf_sections(fd.get(), &elf)) {
    return false;
  }
  for (const Elf64_Shdr& s : elf.headers) {
    std::string_view name = elf.name(s);
    if (name == ".go.buildinfo" || name == ".note.go.buildid") {
      return true;
    }
  }
  return false;
}

}  // namespace coz
