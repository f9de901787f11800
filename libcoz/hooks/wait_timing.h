// The wait hooks' timing, their fast path (the hooks are interpose/wait_hooks.cpp): off-CPU
// profiling of the program's blocking calls (read and write, sockets, poll/select/epoll, fsync,
// sleeps, waits for children).
//
// A call that did not wait costs two loads of the thread's switch counter, one of the ledger's
// word (the position a wake's credit starts from) and one read of the
// time-stamp counter: the kernel bumps the counter (the sampler's perf page, sampler.h) whenever
// it switches the thread out or in, so an unchanged counter means the call never left the CPU,
// and nothing else is done. Without the perf page (the timer sampler), a call shorter than the
// gate (g_wait_gate, 1 us) did not wait, at the cost of two reads of the time-stamp counter; a
// longer one reads the thread's context-switch count (BlockedTime::confirm_wait). A call after
// which it changed waited (or was preempted meanwhile): hooks_api::after_wait() turns its length
// into blocked samples of the calling line (blocked_time.h), and the thread pays what it owes, as
// after a sleep.
//
// Threads: each call acts for the calling thread; async-signal-safe.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

#include "base/fast_clock.h"
#include "base/platform.h"
#include "hooks/quiet_hooks.h"

namespace coz::wait_timing {

// How waits are timed, set with Runtime::active() (0 while no runtime acts, or with --no-off-cpu).
inline constexpr int kOn = 1;   // waits are measured
inline constexpr int kTsc = 2;  // timed with the time-stamp counter (the clock source is the TSC)
// Words the runtime keeps, from start-up, on a page the kernel zeroes in a forked child
// (MADV_WIPEONFORK): a child made without fork()'s atfork handlers (_Fork, a raw clone), whose
// copy of memory lacks the sampler's rings, finds the hooks switched off and never reads a ring.
// (Without the kernel's support, a static copy: fork()'s atfork handler switches a child off.)
struct WipedAtFork {
  std::atomic<int> wait_mode{0};  // how waits are timed (above)
  std::atomic<int> runtime{0};    // 1: the runtime acts in this process
};
extern std::atomic<WipedAtFork*> g_wiped;
inline int mode() {
  return g_wiped.load(std::memory_order_relaxed)->wait_mode.load(std::memory_order_relaxed);
}
// Sets the mode (0: off).
inline void set_mode(int m) {
  g_wiped.load(std::memory_order_relaxed)->wait_mode.store(m, std::memory_order_release);
}
// Whether this process is the one the runtime started in (not a child that skipped atfork).
inline bool runtime_here() {
  return g_wiped.load(std::memory_order_relaxed)->runtime.load(std::memory_order_relaxed) != 0;
}
// At start-up, before any hook acts: moves the words to a page wiped at fork, when the kernel
// offers one (Linux 4.14+), and marks the runtime here.
void keep_wiped_at_fork();
// In a forked child whose runtime starts again: marks the runtime here on the (wiped) page.
inline void mark_runtime_here() {
  g_wiped.load(std::memory_order_relaxed)->runtime.store(1, std::memory_order_release);
}

// One blocking call in progress.
struct Wait {
  ThreadState* thread = nullptr;  // nullptr: not measured
  uint64_t start = 0;             // TSC ticks (tsc) or CLOCK_MONOTONIC nanoseconds
  uint64_t word = 0;              // the ledger's word (epoch and total) as the call began
  uint32_t switches = 0;          // the thread's switch counter before the call
  bool tsc = false;
  ThreadState* flagged = nullptr;  // in_timed_call set for this call (the clock engine runs)
  bool was_in_call = false;        // its value before (a hook in a handler during another call)
};

// Before the real call.
inline Wait begin() {
  Wait w;
  ThreadState* t = t_thread_state;
  if (!t || quiet_hooks::t_inside != 0) {
    return w;
  }
  if (t->signal_in_flight) {
    // Shown waiting to the engine that signals from another thread (ThreadWaits), off-CPU timing
    // or not; no other engine reads the flag, so their hot path does not write it.
    w.flagged = t;
    w.was_in_call = t->in_timed_call.load(std::memory_order_relaxed);
    t->in_timed_call.store(true, std::memory_order_relaxed);
    t->before_stopping(true);
  }
  int mode = wait_timing::mode();
  if (!(mode & kOn)) {
    return w;
  }
  w.thread = t;
  // The thread's position as the wait begins: a wake credits what was inserted while it waited,
  // not what it owed before (DelayProtocol::wait_began). One load of a word every hook reads.
  if (ExperimentState* e = quiet_hooks::g_experiment.load(std::memory_order_relaxed)) {
    w.word = e->ledger.word();
  }
  if (t->switches) {
    w.switches = *t->switches;
  }
  w.tsc = (mode & kTsc) != 0;
  w.start = w.tsc ? fast_clock::tsc() : platform::monotonic_ns();
  return w;
}

// After the real call, before anything else.
inline void end(const Wait& w) {
  if (w.flagged) {
    w.flagged->in_timed_call.store(w.was_in_call, std::memory_order_relaxed);
  }
}

// Without a switch counter (the timer sampler): calls shorter than this (in the unit of
// Wait::start) cannot have waited, and longer ones are confirmed by the thread's count of context
// switches (BlockedTime::confirm_wait). 0: every call is confirmed.
inline std::atomic<uint64_t> g_wait_gate{0};

// After it: whether the call may have waited (the thread left the CPU meanwhile; without a
// counter, it took longer than being switched out and back in can take).
inline bool may_have_waited(const Wait& w) {
  if (!w.thread) {
    return false;
  }
  if (w.thread->switches) {
    return *w.thread->switches != w.switches;
  }
  uint64_t now = w.tsc ? fast_clock::tsc() : platform::monotonic_ns();
  return now - w.start >= g_wait_gate.load(std::memory_order_relaxed);
}

}  // namespace coz::wait_timing
