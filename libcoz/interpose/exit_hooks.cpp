// Hooks for leaving: an exiting thread hands its delay count to its joiner, and
// _exit/_Exit, which skip the library destructor, shut the profiler down themselves so the
// profile keeps its final records (quick_exit: after the program's at_quick_exit handlers, see
// runtime/entry.cpp).
#include "interpose/hook_support.h"

using coz::real;
namespace api = coz::hooks_api;

COZ_EXPORT void exit(int status) noexcept {
  api::catch_up_fully();  // leaving: pays all it owes, as at thread exit
  real().exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void quick_exit(int status) noexcept {
  api::catch_up_fully();  // as exit()
  real().quick_exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void _exit(int status) {
  api::leaving();  // not in a vfork child, which shares the parent's memory
  real()._exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void _Exit(int status) noexcept {
  api::leaving();
  real()._Exit(status);
  __builtin_unreachable();
}

COZ_EXPORT void pthread_exit(void* value) {
  api::before_wake(api::thread_key(pthread_self()));  // for the joiner
  real().pthread_exit(value);
  __builtin_unreachable();
}
