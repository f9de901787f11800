// What the interposed functions (interpose/) and the COZ_* blocking ABI (entry.cpp) may ask of
// the runtime: the calls below, and nothing else of it. The hooks never see the owner class.
// Locks, unlocks and signals first try the inline fast path of quiet_hooks.h (nothing changed
// since the thread last settled); the calls below are the full path.
//
// Re-entry: while the runtime works on behalf of a hook, the hooks that its own code reaches
// (its mutexes, condition variables and joins) find no runtime (active() is false) and only
// call the real function. So the runtime's locks never count as the program's, never publish or
// pay delays, and a hook never runs inside another. The profiler's own thread is marked the same
// way for its whole life.
//
// Threads: each call acts for the calling thread. Every call is a no-op (or returns its default)
// when no runtime is active: before start-up, after shut-down, in the profiler's thread and inside
// the runtime. Signal safety: a signal handler the program installed may call read(), write(),
// nanosleep() and the other async-signal-safe functions the hooks wrap, so every call below may
// run in one. None takes a lock or allocates: they read and update the thread's state and the
// run's counters with atomics, look lines up in the lock-free line map, fstat a descriptor
// (fd_keys.h) and sleep with nanosleep to pay. A handler that interrupts the runtime itself
// finds no runtime (the re-entry rule above), so it never enters the runtime twice on a thread.
#pragma once

#include <pthread.h>

#include "experiment/delay_ledger.h"
#include "hooks/hook_state.h"
#include "hooks/quiet_hooks.h"
#include "hooks/wait_timing.h"

namespace coz::hooks_api {

// Whether a hook on this thread should act (see above).
bool active();

// Blocking and waking (section 5.2.5.4, with the handoff of experiment/handoff_table.h): each is
// the DelayProtocol call of the same name for the calling thread (delay_protocol.h has the rules).
// before_wake(key): about to release or signal `key`; publishes this thread's delay count.
// after_release(): released what others may wait for; pays what is owed (DelayProtocol::catch_up).
// lock_acquired()/lock_released(): a lock is held / one fewer; debt carried into a lock waits for
// the last release.
// before_block(): about to block; pays in full (unless a lock is held) and notes the time.
// before_lock_block(): about to wait for a lock (a mutex or read-write lock); where the selected
// line runs outside any lock, pays as at any hook and carries the rest into the lock, kept
// through the wait; elsewhere as before_block().
// before_meeting(): about to wait at a meeting (a barrier); pays beyond its carry and
// keeps the rest owed through the wait.
// after_block(key, woken): back from waiting on `key` (nullptr: the waker is unknown, as for
// COZ_POST_BLOCK); if another thread released it, credits this thread up to the count that
// thread published (a timed-out wait earns nothing).
// catch_up(): pays what is owed (COZ_CATCH_UP).
// catch_up_in_full(): pays what is owed, its carry included (before a futex wake).
// catch_up_fully(): pays until nothing is owed (after a sleep, at exit).
void before_wake(const void* key);
void after_release();
void lock_acquired();
void lock_released();
void before_block();
void before_lock_block();
void before_meeting();
void after_block(const void* key, bool woken);
void catch_up();
void catch_up_in_full();
void catch_up_fully();

// Off-CPU waits (wait_timing.h): a blocking call that began as `wait` and may have waited has
// returned. Counts its blocked samples for the line that called it (`caller`, a return address;
// `stack`, a word of the hook's frame from which the stack is searched for the innermost in-scope
// caller), credits a wait on the selected line with its virtual speedup, then pays what the
// thread owes, as catch_up_fully().
// `waker`: what may have ended the wait, when it can be another process of the run (a pipe's
// descriptor, a child's pid; WaitFor{} when unknown): the thread is then credited up to the count
// that process published, as a thread woken through a lock is (DelayProtocol::after_block).
struct WaitFor {
  int fd = -1;         // a descriptor read or polled
  int pid = 0;         // a child process waited for
  bool ready = false;  // some descriptor became ready, which one unknown (epoll_wait, select)
};
void after_wait(const wait_timing::Wait& wait, const void* caller, const void* stack,
                WaitFor waker = {});

// Process trees (runtime/shared_run.h), once this process is in one (hook_state.h).
// About to write to `fd`: a reader in another process may wake; publishes the thread's count
// for it (before_wake on the run's shared table, under the pipe's key: hooks/fd_keys.h).
void before_write_slowly(int fd);
inline void before_write(int fd) {
  if (g_in_tree.load(std::memory_order_relaxed)) {
    before_write_slowly(fd);
  }
}
// A process-shared word `key` (a futex whose FUTEX_PRIVATE_FLAG is clear): about to wake its
// waiters, which may be in another process of the run, publish the thread's count for them on the
// run's shared table; back from a wait on it that a wake ended, credit the thread up to the count
// published there (Runtime::wake_across and woken_across).
void wake_across(const void* key);
void woken_across(const void* key);
// The program closed or replaced `fd` (every descriptor from `fd` up, for `and_above`).
void forget_fd(int fd, bool and_above = false);
// This process is about to replace its image (the exec family).
void before_exec();

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
// The process is leaving without its destructors (_exit, _Exit): the runtime's shut-down, or a
// count-only process's counts written (runtime/count_run.h). Not in a vfork child.
void leaving();
// In a count-only process (`coz compare`), how far to move the stack of the thread being
// created (layout/layout_shift.h); 0 otherwise.
size_t next_thread_pad();

}  // namespace coz::hooks_api
