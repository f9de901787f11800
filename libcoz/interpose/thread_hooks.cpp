// Thread creation: every new thread is sampled from its first instruction and inherits its
// creator's delay count. (dlopen is deliberately not interposed: glibc resolves $ORIGIN and
// RUNPATH relative to dlopen's caller; the profiler thread polls for new libraries instead.)
#include <pthread.h>

#include <new>

#include "interpose/hook_support.h"
#include "signals/sample_signal.h"

using coz::real;
namespace api = coz::hooks_api;

namespace {

struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
  coz::LocalDelays delays;    // the creator's, inherited by the new thread
  bool blocks_sample_signal;  // the creator's mask as the program sees it, inherited too
};

void* thread_trampoline(void* p) {
  ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  coz::sample_signal::set_program_blocks(start.blocks_sample_signal);
  api::on_thread_start(start.delays);
  void* result = start.routine(start.arg);
  api::before_wake(api::thread_key(pthread_self()));  // for the joiner
  return result;
}

// A count-only process's thread (`coz compare`): its stack begins `pad` bytes lower, so each run
// puts the program's thread stacks at another offset (layout/layout_shift.h).
struct PaddedStart {
  void* (*routine)(void*);
  void* arg;
  size_t pad;
};

void* padded_trampoline(void* p) {
  PaddedStart start = *static_cast<PaddedStart*>(p);
  delete static_cast<PaddedStart*>(p);
  void* moved = __builtin_alloca(start.pad);
  asm volatile("" : : "r"(moved) : "memory");  // kept below the routine's frame
  void* result = start.routine(start.arg);
  asm volatile("" : : "r"(moved) : "memory");
  return result;
}

int create_padded(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*), void* arg,
                  size_t pad) {
  auto* start = new (std::nothrow) PaddedStart{routine, arg, pad};
  if (!start) {
    return real().pthread_create(thread, attr, routine, arg);
  }
  int rc = real().pthread_create(thread, attr, padded_trampoline, start);
  if (rc != 0) {
    delete start;
  }
  return rc;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                          const pthread_attr_t* attr,
                                                          void* (*routine)(void*), void* arg) {
  if (!api::active()) {
    if (size_t pad = api::next_thread_pad()) {
      return create_padded(thread, attr, routine, arg, pad);
    }
    return real().pthread_create(thread, attr, routine, arg);
  }
  auto* start = new (std::nothrow)
      ThreadStart{routine, arg, api::current_delays(), coz::sample_signal::program_blocks()};
  if (!start) {
    return real().pthread_create(thread, attr, routine, arg);
  }
  api::thread_created();  // counted before it exists, so the creator's exit cannot end profiling
  int rc = real().pthread_create(thread, attr, thread_trampoline, start);
  if (rc != 0) {
    delete start;
    api::thread_gone();
  }
  return rc;
}

}  // extern "C"
