// Interposed functions: thread creation, to sample every thread. Each hook forwards to the real
// function and tells the runtime, if one is active. (dlopen is deliberately not interposed: glibc
// resolves $ORIGIN and RUNPATH relative to dlopen's caller; the profiler thread polls instead.)
#include <pthread.h>

#include <new>

#include "interpose/real_functions.h"
#include "runtime/runtime.h"

using coz::real;
using coz::Runtime;

namespace {

struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
};

void* thread_trampoline(void* p) {
  ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  if (Runtime* rt = Runtime::active()) {
    rt->on_thread_start();
  }
  return start.routine(start.arg);  // the thread-exit side runs from the runtime's key destructor
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                          const pthread_attr_t* attr,
                                                          void* (*routine)(void*), void* arg) {
  if (!Runtime::active()) {
    return real().pthread_create(thread, attr, routine, arg);
  }
  auto* start = new (std::nothrow) ThreadStart{routine, arg};
  if (!start) {
    return real().pthread_create(thread, attr, routine, arg);
  }
  int rc = real().pthread_create(thread, attr, thread_trampoline, start);
  if (rc != 0) {
    delete start;
  }
  return rc;
}

}  // extern "C"
