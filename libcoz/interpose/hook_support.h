// Shared shapes of the blocking and waking hooks (section 5.2.5.4, with the delay-count handoff
// of experiment/handoff_table.h): a thread pays what it owes before it blocks (for a lock, what
// it would pay at any hook: the rest goes into the lock), but never while it holds a lock; a thread
// about to release or signal a primitive publishes its delay count on it and pays once it has
// released the lock; a thread that another thread released from a wait is credited up to the count
// that thread published. Each hook is a short forwarder built from these; with no active runtime
// they only call the real function. Every shape leaves errno as the real call left it: the
// runtime's calls after it (a delay's sleep, say) may change errno, so each shape keeps it
// (KeepErrno) from the real call until it returns.
#pragma once

#include <errno.h>

#include "base/real_functions.h"
#include "hooks/hooks_api.h"

#define COZ_EXPORT extern "C" __attribute__((visibility("default")))

namespace coz::hooks {

// The fast path (quiet_hooks.h): set when nothing changed since the calling thread last settled.
using quiet_hooks::Quiet;
using quiet_hooks::quiet;

// Keeps errno as it is when made (right after a real call) and puts it back when it goes out of
// scope, whatever the runtime's calls in between did to it.
class KeepErrno {
 public:
  KeepErrno() : saved_(errno) {}
  ~KeepErrno() { errno = saved_; }
  KeepErrno(const KeepErrno&) = delete;
  KeepErrno& operator=(const KeepErrno&) = delete;

 private:
  int saved_;
};

// After a release on the fast path: pays only if a total rose meanwhile.
inline void after_quiet_release(const Quiet& q) {
  if (!quiet_hooks::still_quiet(q)) {
    KeepErrno keep;
    hooks_api::after_release();
  }
}

// The calling line of a hook: its return address (used in the exported function itself).
#define COZ_CALLER __builtin_return_address(0)

// A blocking call timed for off-CPU profiling (wait_timing.h): `caller` is the hook's return
// address (COZ_CALLER). A call that waited pays what the thread owes afterwards; `kSleep`: pay
// even if it did not (a sleep earns no credit, and the thread pays before it carries on). Returns
// what `call` returned, with its errno.
// `waker(rc)` names what may have ended a wait (hooks_api::WaitFor: a pipe read, a child waited
// for), so another process of the run that did can credit it.
template <bool kSleep = false, typename F, typename W>
__attribute__((always_inline)) inline auto timed(const void* caller, W&& waker, F&& call) {
  wait_timing::Wait w = wait_timing::begin();
  auto rc = call();
  wait_timing::end(w);
  if (wait_timing::may_have_waited(w)) {
    KeepErrno keep;
    hooks_api::after_wait(w, caller, &w, waker(rc));
  } else if (kSleep && hooks_api::active()) {
    KeepErrno keep;
    hooks_api::catch_up_fully();
  }
  return rc;
}
template <bool kSleep = false, typename F>
__attribute__((always_inline)) inline auto timed(const void* caller, F&& call) {
  return timed<kSleep>(
      caller, [](auto) { return hooks_api::WaitFor{}; }, call);
}
// A sleep (nanosleep, usleep, sleep): timed as a wait, and the thread pays what it owes even when
// the call did not wait (a sleep earns no credit).
template <typename F>
__attribute__((always_inline)) inline auto sleeping(const void* caller, F&& call) {
  return timed<true>(caller, call);
}
// A wait on descriptor `fd` (a read, a receive).
inline auto on_fd(int fd) {
  return [fd](auto) { return hooks_api::WaitFor{fd, 0}; };
}
// A wait for a child: the call returned its pid.
inline auto on_child() {
  return [](auto pid) { return hooks_api::WaitFor{-1, static_cast<int>(pid)}; };
}

// The full path's lock count, keeping errno.
inline void locked_slowly() {
  KeepErrno keep;
  hooks_api::lock_acquired();
}

// Whether a wait may take the fast path: the thread is quiet and owes nothing.
// Its caller waits at once: the thread is marked blocked (quiet_hooks::before_wait).
inline Quiet quiet_waiter() {
  Quiet q = quiet();
  if (q && quiet_hooks::owes_nothing(q)) {
    quiet_hooks::before_wait(q);
    return q;
  }
  return Quiet{};
}

// After a wait on the fast path: nothing more if the word held; otherwise the full path's credit
// (and, with `pay`, its payment after the release). Returns whether the word held.
inline bool after_quiet_wait(const Quiet& q, const void* key, bool woken, bool pay) {
  if (quiet_hooks::still_quiet(q)) {
    q.thread->blocked_now.store(false, std::memory_order_relaxed);
    quiet_hooks::after_wait(q, woken);
    return true;
  }
  KeepErrno keep;
  hooks_api::after_block(key, woken);  // clears blocked_now once credited
  if (pay) {
    hooks_api::after_release();
  }
  return false;
}

// Releasing `key` (post, kill): publish, release, then pay.
template <typename Call>
inline auto releasing(const void* key, Call&& call) {
  if (Quiet q = quiet()) {
    quiet_hooks::before_wake(q, key);
    auto result = call();
    after_quiet_release(q);
    return result;
  }
  if (!hooks_api::active()) {
    return call();
  }
  hooks_api::before_wake(key);
  auto result = call();
  KeepErrno keep;
  hooks_api::after_release();
  return result;
}

// Unlocking `key` (mutex, rwlock): as releasing, and the thread holds one lock fewer.
template <typename Call>
inline int unlocking(const void* key, Call&& call) {
  if (Quiet q = quiet()) {
    quiet_hooks::before_wake(q, key);
    int result = call();
    if (result == 0) {
      quiet_hooks::lock_released(*q.thread);
    }
    after_quiet_release(q);
    return result;
  }
  if (!hooks_api::active()) {
    return call();
  }
  hooks_api::before_wake(key);
  int result = call();
  KeepErrno keep;
  if (result == 0) {
    hooks_api::lock_released();
  }
  hooks_api::after_release();
  return result;
}

// Publishes the calling thread's count on `key`, for a thread about to be woken through it.
inline void publishing(const void* key) {
  if (Quiet q = quiet()) {
    quiet_hooks::before_wake(q, key);
  } else {
    hooks_api::before_wake(key);
  }
}

// Signalling `key` while the caller may hold a lock (condition variables): publish only; the
// caller pays when it releases the lock.
template <typename Call>
inline auto signalling(const void* key, Call&& call) {
  publishing(key);
  return call();
}

// Waiting on `key` until another thread acts; `released(result)` says whether one did (a timeout
// or an error earns no credit). Waits that leave no lock held (joins, semaphores, signals) pay
// what is still owed right away.
template <typename Call, typename Released>
inline auto waiting(const void* key, Call&& call, Released&& released) {
  if (Quiet q = quiet_waiter()) {
    auto result = call();
    after_quiet_wait(q, key, released(result), true);
    return result;
  }
  if (!hooks_api::active()) {
    return call();
  }
  hooks_api::before_block();  // pay before blocking (a no-op while holding a lock, as in cond_wait)
  auto result = call();
  KeepErrno keep;
  hooks_api::after_block(key, released(result));
  hooks_api::after_release();  // a no-op while the thread holds a lock
  return result;
}

// A lock call that leaves the caller holding the lock (EOWNERDEAD: a robust mutex whose owner
// died is still acquired).
inline bool acquired(int rc) {
  return rc == 0 || rc == EOWNERDEAD;
}

// A lock taken without waiting (trylock): the thread holds one lock more; nothing else changes.
inline int took_lock(int rc) {
  if (acquired(rc)) {
    if (Quiet q = quiet()) {
      quiet_hooks::lock_acquired(*q.thread);
    } else {
      locked_slowly();
    }
  }
  return rc;
}

// Waiting for a lock on the fast path (`q` from quiet_waiter(): nothing to pay before blocking).
template <typename Call>
inline int quiet_lock_wait(const Quiet& q, const void* key, Call&& call) {
  quiet_hooks::before_wait(q);
  int result = call();
  // As after_block: a lock held is taken afresh.
  bool quiet_still = after_quiet_wait(q, key, acquired(result), false);
  if (acquired(result)) {
    quiet_still ? quiet_hooks::lock_acquired(*q.thread) : locked_slowly();
  }
  return result;
}

// The full path of a wait for a lock: pays as at any hook and carries the rest into the lock
// (DelayProtocol::before_lock_block). On success the lock is counted held before the credit, which
// then notes what the thread carries in (after_block): a signal in between pays none of that
// inside the critical section.
template <typename Call>
inline int wait_for_lock(const void* key, Call&& call) {
  hooks_api::before_lock_block();
  int result = call();
  KeepErrno keep;
  if (acquired(result)) {
    hooks_api::lock_acquired();
  }
  hooks_api::after_block(key, acquired(result));
  return result;
}

// Waiting for a lock (timed lock variants): as waiting, and on success the thread holds it.
template <typename Call>
inline int lock_waiting(const void* key, Call&& call) {
  if (Quiet q = quiet(); q && quiet_hooks::owes_nothing(q)) {
    return quiet_lock_wait(q, key, call);  // which marks it blocked
  }
  if (!hooks_api::active()) {
    return call();
  }
  return wait_for_lock(key, call);
}

// A lock: an uncontended acquisition waited for nobody; otherwise wait as above. `busy` is the
// try call's "would block" result.
template <typename Try, typename Block>
inline int locking(const void* key, Try&& attempt, int busy, Block&& block) {
  int result;
  if (Quiet q = quiet()) {
    result = attempt();
    if (result == busy && quiet_hooks::owes_nothing(q)) {
      return quiet_lock_wait(q, key, block);  // nothing to pay before blocking: a wait's fast path
    }
    if (result != busy) {
      if (acquired(result)) {
        quiet_hooks::lock_acquired(*q.thread);
      }
      return result;
    }
    // It would block owing delays: the full path below.
  } else if (!hooks_api::active()) {
    return block();
  } else {
    result = attempt();
  }
  if (result != busy) {
    KeepErrno keep;
    if (acquired(result)) {
      hooks_api::lock_acquired();
    }
    return result;
  }
  return wait_for_lock(key, block);
}

// A wait that tries first without blocking (sem_wait): an immediate success waited for nobody;
// otherwise wait as above. `attempt` returns 0 or -1 with errno (EAGAIN: it would block).
template <typename Try, typename Call>
inline int trying_then_waiting(const void* key, Try&& attempt, Call&& call) {
  if (!hooks_api::active()) {
    return call();
  }
  const int before = errno;
  if (attempt() == 0) {
    return 0;
  }
  if (errno != EAGAIN) {
    return -1;
  }
  errno = before;  // the attempt's EAGAIN is not the program's
  if (Quiet q = quiet_waiter()) {
    int result = call();
    after_quiet_wait(q, key, result == 0, true);
    return result;
  }
  hooks_api::before_block();  // pay in full before blocking
  int result = call();
  KeepErrno keep;
  hooks_api::after_block(key, result == 0);
  hooks_api::after_release();
  return result;
}

// A barrier: every arrival pays what it owes beyond one sample's worth, keeps the rest through
// the wait (DelayProtocol::before_meeting), and publishes; the last one releases the rest, who
// are credited up to the highest count among the arrivals. Paying first matters for the last
// arrival: it waits for nobody, so a credit would forgive delays owed for
// the others' sped-up lines, and its late arrival is what the virtual speedup must show (a line
// in a thread that always arrives early then has no effect, as in the real program; before, it
// read as a speedup of the line's share). `released(result)` says whether the wait completed.
template <typename Call, typename Released>
inline int meeting(const void* key, Call&& call, Released&& released) {
  if (Quiet q = quiet_waiter()) {
    quiet_hooks::before_wake(q, key);
    int result = call();
    after_quiet_wait(q, key, released(result), true);
    return result;
  }
  if (!hooks_api::active()) {
    return call();
  }
  hooks_api::before_meeting();
  hooks_api::before_wake(key);
  int result = call();
  KeepErrno keep;
  hooks_api::after_block(key, released(result));
  hooks_api::after_release();
  return result;
}

inline bool returned_zero(int rc) {
  return rc == 0;
}
inline bool returned_positive(int rc) {
  return rc > 0;
}
inline bool always(int) {
  return true;
}

// The key under which signal senders and signal waiters meet.
inline const void* signal_key() {
  static const char key = 0;
  return &key;
}

// The key under which an exiting thread meets its joiner.
inline const void* thread_key(pthread_t thread) {
  return hooks_api::thread_key(thread);
}

}  // namespace coz::hooks
