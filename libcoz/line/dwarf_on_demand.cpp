// Line tables with elfutils loaded on demand (see dwarf_on_demand.h).
#include "line/dwarf_on_demand.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/platform.h"

namespace coz {
namespace {

// The directory of `file`, with its slash.
std::string directory_of(const std::string& file) {
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? std::string() : file.substr(0, slash + 1);
}

// The module's path: beside this library as the loader named it (coz run may preload it through
// a link in a directory of its own, which links the module too: preload_path.h), else beside the
// file that name leads to.
std::string module_path() {
  const char* self = platform::own_library_file();
  if (!self) {
    return kDwarfModuleFile;
  }
  std::string beside = directory_of(self) + kDwarfModuleFile;
  if (access(beside.c_str(), F_OK) == 0) {
    return beside;
  }
  char* real = realpath(self, nullptr);
  std::string file = real ? real : self;
  free(real);
  return directory_of(file) + kDwarfModuleFile;
}

// dlopen() expands $ORIGIN, $LIB and $PLATFORM in a path: one with a '$' is opened by descriptor.
void* open_module(const std::string& path) {
  if (path.find('$') == std::string::npos) {
    return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // for dlerror()'s reason
  }
  void* module = dlopen(("/proc/self/fd/" + std::to_string(fd)).c_str(), RTLD_NOW | RTLD_LOCAL);
  close(fd);
  return module;
}

}  // namespace

// Loads of the module so far. Each load leaves its libstdc++'s emergency exception pool behind
// (about 70 KiB, never freed by dlclose): a process that needs the module a second time (it
// loads libraries with lines in scope as it runs) keeps it from then on.
static int g_loads = 0;  // under ProgramLines' lock, as every DwarfLines

DwarfLines::~DwarfLines() {
  if (module_ && g_loads < 2) {
    dlclose(module_);  // nothing of it is left in use: its results are plain data
  }
}

std::unique_ptr<ObjectLines> DwarfLines::load(const LoadedObject& object, const Scope& scope,
                                              LineTable* table, const std::string& debug_path) {
  if (std::unique_ptr<ObjectLines> none = lines_without_debug_info(object, debug_path)) {
    return none;
  }
  if (!tried_) {
    tried_ = true;
    std::string path = module_path();
    module_ = open_module(path);
    g_loads += module_ ? 1 : 0;
    if (!module_) {
      const char* why = dlerror();
      error_ = "cannot load " + path + " (" + (why ? why : "unknown error") +
               "), which reads line tables; it belongs beside libcoz.so: reinstall coz";
    } else if (!(entry_ = reinterpret_cast<DwarfLoadFunction>(dlsym(module_, kDwarfModuleEntry)))) {
      error_ = path + " is not this runtime's (no " + kDwarfModuleEntry + "): reinstall coz";
    }
  }
  if (entry_) {
    ObjectLines* out = nullptr;
    entry_(&object, &scope, table, &debug_path, &out);
    if (out) {
      return std::unique_ptr<ObjectLines>(out);
    }
  }
  auto failed = std::make_unique<ObjectLines>();
  failed->object = object;
  failed->status = DebugInfoStatus::kCannotOpen;
  failed->message = error_.empty() ? object.path + ": no line tables read" : error_;
  return failed;
}

}  // namespace coz
