// Whether an ELF object may have debug information (see debug_precheck.h).
#include "line/debug_precheck.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <vector>

namespace coz {
namespace {

bool read_at(int fd, void* out, size_t n, uint64_t at) {
  return pread(fd, out, n, static_cast<off_t>(at)) == static_cast<ssize_t>(n);
}

bool exists(const std::string& path) {
  return access(path.c_str(), F_OK) == 0;
}

// Each absolute directory of `search`.
std::vector<std::string> roots(const std::string& search) {
  std::vector<std::string> out;
  for (std::string_view rest(search); !rest.empty();) {
    size_t colon = rest.find(':');
    std::string_view root = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (!root.empty() && (root[0] == '+' || root[0] == '-')) {
      root.remove_prefix(1);  // elfutils' markers for checking CRCs: the directory is the rest
    }
    if (!root.empty() && root[0] == '/') {
      out.emplace_back(root);
    }
  }
  return out;
}

}  // namespace

bool may_have_debug_info(const std::string& path, const std::string& search) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return true;
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  Elf64_Ehdr eh;
  if (!read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum) {
    return true;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(fd, sections.data(), sections.size() * sizeof(Elf64_Shdr), eh.e_shoff)) {
    return true;
  }
  const Elf64_Shdr& names_header = sections[eh.e_shstrndx];
  if (names_header.sh_size == 0 || names_header.sh_size > (1u << 20)) {
    return true;
  }
  std::vector<char> names(names_header.sh_size + 1, '\0');
  if (!read_at(fd, names.data(), names_header.sh_size, names_header.sh_offset)) {
    return true;
  }
  std::string debuglink;
  std::string build_id;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_name >= names_header.sh_size) {
      return true;
    }
    std::string_view name(names.data() + s.sh_name);
    if (name.rfind(".debug_", 0) == 0 || name.rfind(".zdebug_", 0) == 0) {
      return true;
    }
    if (name == ".gnu_debuglink" && s.sh_size > 0 && s.sh_size < 4096) {
      std::vector<char> link(s.sh_size + 1, '\0');
      if (!read_at(fd, link.data(), s.sh_size, s.sh_offset)) {
        return true;
      }
      debuglink = link.data();
    } else if (s.sh_type == SHT_NOTE && build_id.empty()) {
      // The build id is a "GNU" note of type NT_GNU_BUILD_ID in any note section (linkers put it
      // in .note.gnu.build-id, a linker script may merge notes), as elfutils looks for it.
      if (s.sh_size > (64u << 10)) {
        return true;
      }
      std::vector<unsigned char> notes(s.sh_size);
      if (!read_at(fd, notes.data(), s.sh_size, s.sh_offset)) {
        return true;
      }
      for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
        Elf64_Nhdr nh;
        memcpy(&nh, notes.data() + at, sizeof nh);
        size_t name_at = at + sizeof nh;
        size_t desc = name_at + ((nh.n_namesz + 3) & ~size_t{3});
        size_t next = desc + ((nh.n_descsz + 3) & ~size_t{3});
        if (desc + nh.n_descsz > notes.size() || next <= at) {
          return true;  // not notes as they should be: elfutils decides
        }
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            memcmp(notes.data() + name_at, "GNU", 4) == 0) {
          static const char kHex[] = "0123456789abcdef";
          for (size_t i = 0; i < nh.n_descsz; i++) {
            build_id += kHex[notes[desc + i] >> 4];
            build_id += kHex[notes[desc + i] & 15];
          }
          break;
        }
        at = next;
      }
    }
  }
  std::vector<std::string> dirs = roots(search);
  if (build_id.size() > 2) {
    for (const std::string& root : dirs) {
      if (exists(root + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) +
                 ".debug")) {
        return true;
      }
    }
  }
  if (!debuglink.empty()) {
    std::string dir = path.substr(0, path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
    std::vector<std::string> candidates = {dir + "/" + debuglink, dir + "/.debug/" + debuglink};
    for (const std::string& root : dirs) {
      candidates.push_back(root + dir + "/" + debuglink);
    }
    for (const std::string& c : candidates) {
      if (c != path && exists(c)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace coz
