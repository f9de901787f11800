// Resolution of the real functions behind the hooks (see real_functions.h).
#include "base/real_functions.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/platform.h"

namespace coz {

RealFunctions real_functions::g_real;
std::atomic<bool> real_functions::g_resolved{false};

namespace {

template <typename T>
void resolve(T* slot, const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    platform::write_stderr("coz: internal error: cannot find the real ");
    platform::write_stderr(name);
    platform::write_stderr("\n");
    syscall(SYS_exit_group, 127);  // not _exit: that is a hook, which needs this table
  }
  memcpy(slot, &p, sizeof p);
}

}  // namespace

const RealFunctions& real_functions::resolve() {
  if (!g_resolved.load(std::memory_order_acquire)) {
#define COZ_RESOLVE(name, ret, params) coz::resolve(&g_real.name, #name);
    COZ_REAL_FUNCTIONS(COZ_RESOLVE)
#undef COZ_RESOLVE
    g_resolved.store(true, std::memory_order_release);
  }
  return g_real;
}

namespace {

// Calls visit(entry) on each entry of LD_PRELOAD (separated by colons or spaces, as the loader
// separates them) until it returns true; returns whether one did.
template <typename F>
bool any_preloaded(F&& visit) {
  const char* list = getenv("LD_PRELOAD");
  for (const char* p = list; p && *p;) {
    size_t n = strcspn(p, ": ");
    if (n > 0 && visit(std::string_view(p, n))) {
      return true;
    }
    p += n + (p[n] ? 1 : 0);
  }
  return false;
}

// Whether the object at `path` is one of LD_PRELOAD's (by path or by file name).
bool preloaded(const char* path) {
  const char* base = strrchr(path, '/');
  std::string_view file(base ? base + 1 : path);
  return any_preloaded([&](std::string_view entry) { return entry == path || entry == file; });
}

}  // namespace

bool wrapped_after_runtime(char* out, size_t size) {
  // Only another LD_PRELOAD entry can be what a real function resolves to: with the runtime
  // alone there, nothing to look up (dladdr on every function takes most of a millisecond, in
  // every process a run starts).
  int entries = 0;
  if (!any_preloaded([&](std::string_view) { return ++entries > 1; })) {
    return false;
  }
  const char* library = nullptr;
  size_t used = 0;
  auto check = [&](const char* name, void* fn) {
    Dl_info info = {};
    if (!fn || !dladdr(fn, &info) || !info.dli_fname || !preloaded(info.dli_fname) ||
        (library && strcmp(library, info.dli_fname) != 0)) {
      return;
    }
    if (!library) {
      library = info.dli_fname;
      used = static_cast<size_t>(snprintf(out, size, "%s:", library));
    }
    if (used < size) {
      used += static_cast<size_t>(snprintf(out + used, size - used, " %s", name));
    }
  };
#define COZ_CHECK(name, ret, params) check(#name, reinterpret_cast<void*>(real().name));
  COZ_REAL_FUNCTIONS(COZ_CHECK)
#undef COZ_CHECK
  return library != nullptr;
}

}  // namespace coz
