// The hooks' own state, below the runtime that acts for them: the re-entry guard (a thread inside
// the runtime, or the profiler's own, finds every hook passing straight through) and whether this
// process is in a tree of processes. The runtime sets both; hooks_api.h reads them.
// Threads: the guard is per thread; the tree flag is process-wide, relaxed.
#pragma once

#include <atomic>

#include "hooks/quiet_hooks.h"

namespace coz::hooks_api {

// Process trees (runtime/shared_run.h). Whether this process has followed children or is one;
// until then the tree's calls do nothing.
extern std::atomic<bool> g_in_tree;
// This process is about to start another (fork, spawn, system, popen).
inline void starting_process() {
  g_in_tree.store(true, std::memory_order_relaxed);
}

// For the runtime's own entry points that no hook calls (the library constructor and
// destructor, a thread's exit destructor, the COZ_* ABI): while one lives, hooks on this thread
// act as inside the runtime.
class InsideRuntime {
 public:
  InsideRuntime() { quiet_hooks::t_inside++; }
  ~InsideRuntime() { quiet_hooks::t_inside--; }
  InsideRuntime(const InsideRuntime&) = delete;
  InsideRuntime& operator=(const InsideRuntime&) = delete;
};

// For the runtime: marks the calling thread as the profiler's own, for good.
inline void mark_profiler_thread() {
  quiet_hooks::t_inside = 1;
}

}  // namespace coz::hooks_api
