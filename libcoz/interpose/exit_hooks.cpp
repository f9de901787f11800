// Hooks for leaving: an exiting thread hands its delay count to its joiner, and
// _exit/_Exit, which skip the library destructor, shut the profiler down themselves so the
// profile keeps its final records.
#include "interpose/hook_support.h"

using coz::real;

COZ_EXPORT void exit(int status) noexcept {
  if (coz::Runtime* rt = coz::Runtime::active()) {
    rt->catch_up();
  }
  real().exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void _exit(int status) {
  if (coz::Runtime* rt = coz::Runtime::active(); rt && rt->owns_this_process()) {
    rt->shutdown();  // not in a vfork child, which shares the parent's memory
  }
  real()._exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void _Exit(int status) noexcept {
  if (coz::Runtime* rt = coz::Runtime::active(); rt && rt->owns_this_process()) {
    rt->shutdown();
  }
  real()._Exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void pthread_exit(void* value) {
  if (coz::Runtime* rt = coz::Runtime::active()) {
    rt->before_wake(coz::hooks::thread_key(pthread_self()));  // for the joiner
  }
  real().pthread_exit(value);
  __builtin_unreachable();
}
