// A runtime path the loader can take (see preload_path.h).
#include "commands/preload_path.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

namespace coz::cli {

bool PreloadPath::needs_link(const std::string& path) {
  return path.find_first_of(" :$") != std::string::npos;
}

bool PreloadPath::prepare(const std::string& runtime, std::string* error) {
  remove();
  if (!needs_link(runtime)) {
    path_ = runtime;
    return true;
  }
  const char* tmp = getenv("TMPDIR");
  std::string base = tmp && tmp[0] == '/' && !needs_link(tmp) ? tmp : "/tmp";
  std::string dir = base + "/coz-run.XXXXXX";
  int err = 0;
  if (mkdtemp(dir.data()) == nullptr) {
    err = errno;
  } else if (symlink(runtime.c_str(), (dir + "/libcoz.so").c_str()) != 0) {
    err = errno;
    rmdir(dir.c_str());
  } else {
    // The module the runtime loads from its own directory to read line tables
    // (libcoz/line/dwarf_on_demand.h); without it, the runtime looks beside the link's target.
    std::string module = runtime.substr(0, runtime.rfind('/') + 1) + "libcoz-dwarf.so";
    if (symlink(module.c_str(), (dir + "/libcoz-dwarf.so").c_str()) != 0) {
      err = errno;
      unlink((dir + "/libcoz.so").c_str());
      rmdir(dir.c_str());
    }
  }
  if (err != 0) {
    *error = "the runtime's path " + runtime +
             " holds a space, ':' or '$', which the loader splits or expands in LD_PRELOAD, and "
             "no link to it could be made in " +
             base + " (" + strerror(err) +
             "); install coz under a path without them, or set COZ_RUNTIME to a copy of "
             "libcoz.so (with libcoz-dwarf.so beside it) elsewhere";
    return false;
  }
  link_dir_ = dir;
  path_ = dir + "/libcoz.so";
  return true;
}

void PreloadPath::remove() {
  if (!link_dir_.empty()) {
    unlink((link_dir_ + "/libcoz.so").c_str());
    unlink((link_dir_ + "/libcoz-dwarf.so").c_str());
    rmdir(link_dir_.c_str());
    link_dir_.clear();
  }
  path_.clear();
}

}  // namespace coz::cli
