// What the interposed functions (interpose/) may ask of the runtime: the calls below, and
// nothing else of it. The hooks never see the runtime's owner class.
//
// Re-entry: while the runtime works on behalf of a hook, the hooks that its own code reaches
// (its mutexes, condition variables and joins) find no runtime (active() is false) and only
// call the real function. So the runtime's locks never count as the program's, never publish or
// pay delays, and a hook never runs inside another. The profiler's own thread is marked the same
// way for its whole life.
//
// Threads: each call acts for the calling thread. Every call is a no-op (or returns its default)
// when no runtime is active: before start-up, after shut-down, in the profiler's thread and inside
// the runtime. Signal safety: active(), before_wake(), after_block(), lock_acquired() and
// lock_released() may run in a signal handler the program installed (they defer to a hook the
// handler interrupted); the others are for ordinary calls.
#pragma once

#include <pthread.h>

#include "experiment/delay_ledger.h"

namespace coz::hooks_api {

// Whether a hook on this thread should act (see above).
bool active();

// Blocking and waking (section 5.2.5.4): see Runtime for each step.
void before_wake(const void* key);
void after_release();
void lock_acquired();
void lock_released();
void before_block();
void after_block(const void* key, bool woken);
void catch_up();
void catch_up_fully();

// Thread life cycle.
LocalDelays current_delays();
void thread_created();
void thread_gone();
void on_thread_start(const LocalDelays& inherited);
// The key under which an exiting thread meets its joiner.
const void* thread_key(pthread_t thread);

// Leaving the process.
bool owns_this_process();
void shutdown();

// For the runtime's own entry points that no hook calls (the library constructor and
// destructor, a thread's exit destructor, the COZ_* ABI): while one lives, hooks on this thread
// act as inside the runtime.
class InsideRuntime {
 public:
  InsideRuntime();
  ~InsideRuntime();
  InsideRuntime(const InsideRuntime&) = delete;
  InsideRuntime& operator=(const InsideRuntime&) = delete;
};

// For the runtime: marks the calling thread as the profiler's own, for good.
void mark_profiler_thread();

}  // namespace coz::hooks_api
