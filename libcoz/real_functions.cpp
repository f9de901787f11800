// Resolution of the real functions behind the hooks (see real_functions.h).
#include "real_functions.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "platform.h"

namespace coz {
namespace {

RealFunctions g_real;
std::atomic<bool> g_resolved{false};

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

const RealFunctions& real() {
  if (!g_resolved.load(std::memory_order_acquire)) {
#define COZ_RESOLVE(name, ret, params) resolve(&g_real.name, #name);
    COZ_REAL_FUNCTIONS(COZ_RESOLVE)
#undef COZ_RESOLVE
    g_resolved.store(true, std::memory_order_release);
  }
  return g_real;
}

}  // namespace coz
