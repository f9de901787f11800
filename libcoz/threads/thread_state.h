// Everything the runtime keeps for one program thread: its side of the delay protocol, its
// sampler, its --progress counters, and its place in the registry (thread_registry.h).
// States are pooled and recycled, never freed. The hooks and the signal handler find the calling
// thread's own through t_thread_state.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "config/run_config.h"
#include "sample/blocked_clock.h"
#include "sample/sampler.h"
#include "threads/thread_delays.h"

namespace coz {

// ThreadState::visits_base_epoch for a base taken as the thread attached (no epoch has that value).
inline constexpr uint64_t kVisitsSinceAttach = ~0ull - 1;

struct ThreadState : ThreadDelays {
  std::atomic<pid_t> tid{0};
  std::unique_ptr<ThreadSampler> sampler;
  // Held by whichever thread drains this sampler: the owner's signal handler, or shut-down.
  std::atomic<bool> draining{false};
  uint64_t samples = 0;         // samples drained for this thread
  ThreadState* next = nullptr;  // live list or free list
  ThreadState* prev = nullptr;  // live list: unlinked in O(1) at detach
  bool scanned = false;         // attached by the start-up scan of /proc/self/task
  // For the wait hooks (wait_timing.h), set as the thread starts: the sampler's switch counter
  // (nullptr: the wait gate and confirm_wait tell), the thread's stack (bounds the walk for the
  // calling line: a hook on another stack, a signal's alternate stack or a coroutine's, credits
  // the direct caller only), its blocked samples' clock.
  const volatile uint32_t* switches = nullptr;
  uint64_t seen_switches = 0;  // without a counter: context switches at the last wait confirmed
  uintptr_t stack_lo = 0;
  uintptr_t stack_hi = 0;
  BlockedClock blocked;

  // The thread's progress visits, every point's (`_coz_thread_visits` in coz.h: the program's own
  // thread adds to it), and the count when the open experiment began (visits_base_epoch: that
  // experiment, or kVisitsSinceAttach: the count as this thread attached, whatever experiment;
  // another epoch: 0). Not zeroed when the state is recycled: a thread that has detached may
  // still add a visit from a later key destructor, which then counts as one stray visit.
  // threads/progress_threads.h reads them.
  Counter visits{0, 0};
  uint64_t visits_base = 0;
  uint64_t visits_base_epoch = ~0ull;
  // What was left of a pause from before the open experiment as it began: time the thread spent
  // paused in it that its local total does not hold.
  uint64_t pause_spill_ns = 0;

  // --progress counters: the profiler's own descriptors (own_fds.h), -1 when not open.
  std::atomic<int> breakpoint_fds[kMaxBreakpointPoints] = {-1, -1, -1, -1};

  bool try_begin_drain() { return !draining.exchange(true, std::memory_order_acquire); }
  void end_drain() { draining.store(false, std::memory_order_release); }
};

// The calling thread's state, or nullptr: not sampled, exiting, or attached by the start-up scan
// (scanned: sampled, and its signal handler finds its state by descriptor, but its hooks do
// nothing). Set by the thread's own start and exit (thread_life.cpp), read by the hooks and the
// signal handler. Initial-exec TLS, so reading it never allocates.
extern __thread __attribute__((tls_model("initial-exec"))) ThreadState* t_thread_state;

}  // namespace coz
