// Whether an ELF object may have debug information (see debug_precheck.h).
#include "line/debug_precheck.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"
#include "line/elf_sections.h"

namespace coz {
namespace {

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
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ElfSections elf;
  if (fd.get() < 0 || !read_elf_sections(fd.get(), &elf)) {
    return true;
  }
  std::string debuglink;
  std::string build_id;
  std::vector<unsigned char> bytes;
  for (const Elf64_Shdr& s : elf.headers) {
    if (s.sh_name + 1 >= elf.names.size()) {  // past the table's end
      return true;
    }
    std::string_view name = elf.name(s);
    if (name.rfind(".debug_", 0) == 0 || name.rfind(".zdebug_", 0) == 0) {
      return true;
    }
    if (name == ".gnu_debuglink" && s.sh_size > 0) {
      if (!read_section(fd.get(), s, 4096, &bytes)) {
        return true;
      }
      bytes.push_back(0);
      debuglink = reinterpret_cast<const char*>(bytes.data());
    } else if (s.sh_type == SHT_NOTE && build_id.empty()) {
      // The build id is a "GNU" note of type NT_GNU_BUILD_ID in any note section (linkers put it
      // in .note.gnu.build-id, a linker script may merge notes), as elfutils looks for it.
      if (!read_section(fd.get(), s, 64u << 10, &bytes)) {
        return true;
      }
      for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= bytes.size();) {
        Elf64_Nhdr nh;
        memcpy(&nh, bytes.data() + at, sizeof nh);
        size_t name_at = at + sizeof nh;
        size_t desc = name_at + ((nh.n_namesz + 3) & ~size_t{3});
        size_t next = desc + ((nh.n_descsz + 3) & ~size_t{3});
        if (desc + nh.n_descsz > bytes.size() || next <= at) {
          return true;  // not notes as they should be: elfutils decides
        }
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            memcmp(bytes.data() + name_at, "GNU", 4) == 0) {
          static const char kHex[] = "0123456789abcdef";
          for (size_t k = 0; k < nh.n_descsz; k++) {
            build_id += kHex[bytes[desc + k] >> 4];
            build_id += kHex[bytes[desc + k] & 15];
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
