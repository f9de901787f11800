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
    } else if (s.sh_type == SHT_NOTE && name == ".note.gnu.build-id" && s.sh_size > 12 &&
               s.sh_size < 1024) {
      std::vector<unsigned char> note(s.sh_size);
      if (!read_at(fd, note.data(), s.sh_size, s.sh_offset)) {
        return true;
      }
      Elf64_Nhdr nh;
      memcpy(&nh, note.data(), sizeof nh);
      size_t desc = sizeof nh + ((nh.n_namesz + 3) & ~3u);
      if (nh.n_type == NT_GNU_BUILD_ID && desc + nh.n_descsz <= note.size()) {
        static const char kHex[] = "0123456789abcdef";
        for (size_t i = 0; i < nh.n_descsz; i++) {
          build_id += kHex[note[desc + i] >> 4];
          build_id += kHex[note[desc + i] & 15];
        }
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
