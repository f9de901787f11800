// The typed table of the real functions behind the hooks, resolved with dlsym(RTLD_NEXT) on first
// use. Callable before the runtime starts and from any thread; resolution is idempotent, so a race
// between two first callers stores the same pointers twice.
#pragma once

#include <dlfcn.h>
#include <pthread.h>

namespace coz {

struct RealFunctions {
  int (*pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
};

// The table, resolved on first call.
const RealFunctions& real();

}  // namespace coz
