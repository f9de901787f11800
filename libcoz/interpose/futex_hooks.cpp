// Hooks for futexes a program waits on and wakes itself, through glibc's syscall(): Rust's
// standard library (Mutex, Condvar, RwLock, Once, thread::park, mpsc), parking_lot, crossbeam,
// Tokio's workers, and libstdc++'s std::atomic::wait, <semaphore>, <latch> and <barrier>. None of
// them goes through a pthread call, so without these a thread woken from a futex is never credited
// for the delays inserted while it slept (docs/experiments.md, "Futexes").
//
// A futex is followed like a condition variable (sync_hooks.cpp), keyed by the word's address:
// - a wait (FUTEX_WAIT, _WAIT_BITSET, _LOCK_PI, _LOCK_PI2, _WAIT_REQUEUE_PI, futex_waitv) pays
//   what the thread owes before it blocks; a wait that returns 0 was ended by a wake (a timeout,
//   EAGAIN or EINTR earns nothing) and is credited up to the count its waker published on the word
//   (futex_waitv: on the word its index names);
// - a wake (FUTEX_WAKE, _WAKE_BITSET, _UNLOCK_PI, and the two-word _WAKE_OP, _REQUEUE,
//   _CMP_REQUEUE, _CMP_REQUEUE_PI on both words) pays what the waker owes, publishes its count on
//   the word, then wakes (futex_wake says why it pays first).
// A shared futex (FUTEX_PRIVATE_FLAG clear) in a process tree is also published on, and credited
// from, the run's shared table under the same address: a mapping shared across fork() has one
// address in every process. (A region mapped at different addresses in two processes is not
// matched: its waiter is credited only from its own process, like a wait with an unknown waker
// from nobody.)
//
// The kernel's answer is returned untouched, with its errno. Every other system call goes
// straight to the kernel with six argument registers, as glibc's syscall() does, without touching
// the runtime: a program that calls syscall() in a hot loop pays about one function call more.
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cstdint>

#include "interpose/hook_support.h"

using namespace coz::hooks;
namespace hooks_api = coz::hooks_api;

namespace {

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

// The system call, as glibc's syscall() makes it: -1 and errno for an error.
long kernel(long number, long a, long b, long c, long d, long e, long f) {
#if defined(__x86_64__)
  unsigned long rc;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(rc)
                   : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory");
  unsigned long rc = static_cast<unsigned long>(x0);
#else
#error "futex_hooks.cpp: no system call sequence for this architecture"
#endif
  if (rc > -4096ul) {
    errno = -static_cast<int>(rc);
    return -1;
  }
  return static_cast<long>(rc);
}

// One futex call: its arguments, and what its words mean.
struct FutexCall {
  long number;
  long args[6];

  long operator()() const {
    return kernel(number, args[0], args[1], args[2], args[3], args[4], args[5]);
  }
  int command() const { return static_cast<int>(args[1]) & FUTEX_CMD_MASK; }
  bool shared() const { return (args[1] & FUTEX_PRIVATE_FLAG) == 0; }
  const void* word() const { return reinterpret_cast<const void*>(args[0]); }
  const void* second_word() const { return reinterpret_cast<const void*>(args[4]); }
};

// futex_waitv's entry (struct futex_waitv) that a successful wait's index names, or nullptr.
struct Waiter {
  uint64_t value;
  uint64_t address;
  uint32_t flags;
  uint32_t reserved;
};
const Waiter* woken_waiter(const FutexCall& call, long rc) {
  const auto* waiters = reinterpret_cast<const Waiter*>(call.args[0]);
  // nr_futexes is an unsigned int: the register's upper half is not its.
  return rc >= 0 && rc < static_cast<long>(static_cast<uint32_t>(call.args[1])) && waiters
             ? &waiters[rc]
             : nullptr;
}

// The word a wait returning `rc` was woken on, and whether it is shared.
struct Woken {
  const void* key;
  bool shared;
};

// A wait: as `waiting` in hook_support.h, with the key known after the call (`woken_on(rc)`).
// Only a wait that returned 0 (futex_waitv: an index) on a known word was ended by a wake; a
// wake with no word would credit up to the global total (an unknown waker). A shared word is
// credited from the run's shared table first (woken_across), then from this process's own
// (after_block), before anything is paid.
template <typename On>
long futex_wait(const FutexCall& call, On&& woken_on) {
  if (Quiet q = quiet_waiter()) {
    long rc = call();
    Woken w = woken_on(rc);
    bool woken = rc >= 0 && w.key;
    if (woken && w.shared && !coz::quiet_hooks::still_quiet(q)) {
      KeepErrno keep;
      hooks_api::woken_across(w.key);
    }
    after_quiet_wait(q, w.key, woken, true);
    return rc;
  }
  if (!hooks_api::active()) {
    return call();
  }
  hooks_api::before_block();
  long rc = call();
  KeepErrno keep;
  Woken w = woken_on(rc);
  bool woken = rc >= 0 && w.key;
  if (woken && w.shared) {
    hooks_api::woken_across(w.key);
  }
  hooks_api::after_block(w.key, woken);
  hooks_api::after_release();
  return rc;
}

// A wake of the waiters on `key` (and `second`, when not nullptr). The waker pays all it owes
// first (the last sample's worth too), then publishes, then wakes: a futex lock is already free
// in memory when its holder calls FUTEX_WAKE, and nothing tells the runtime a thread holds one,
// so the pthread rule of paying the run-up before the release cannot apply. Paying before the
// wake is Coz's rule: delays other threads' samples added while this thread ran a critical
// section then hold up whoever it wakes, as in the virtual world they would. Paid after the
// wake, or left as one sample's worth (a sample is a millisecond, longer than most critical
// sections), they fell in the waker's slack, and the lock's waiters never saw them: a line
// outside a contended Rust Mutex read as a speedup.
long futex_wake(const FutexCall& call, const void* key, const void* second, bool shared) {
  Quiet q = quiet();
  if (!q || !coz::quiet_hooks::owes_nothing(q)) {
    hooks_api::catch_up_in_full();
  }
  if (shared) {  // paid first: a waiter in another process is credited with it too
    hooks_api::wake_across(key);
    if (second) {
      hooks_api::wake_across(second);
    }
  }
  if (second) {
    publishing(second);
  }
  publishing(key);
  return call();
}

long futex(const FutexCall& call) {
  if (call.number == SYS_futex_waitv) {
    return futex_wait(call, [&](long rc) {
      const Waiter* w = woken_waiter(call, rc);
      return w ? Woken{reinterpret_cast<const void*>(w->address),
                       (w->flags & FUTEX_PRIVATE_FLAG) == 0}
               : Woken{nullptr, false};
    });
  }
  switch (call.command()) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
      return futex_wait(call, [&](long) { return Woken{call.word(), call.shared()}; });
    case FUTEX_WAIT_REQUEUE_PI:
      // Woken holding the second (PI) word: by its unlock, or by the requeue that took it.
      return futex_wait(call, [&](long) { return Woken{call.second_word(), call.shared()}; });
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
    case FUTEX_UNLOCK_PI:
      return futex_wake(call, call.word(), nullptr, call.shared());
    case FUTEX_WAKE_OP:
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
    case FUTEX_CMP_REQUEUE_PI:
      return futex_wake(call, call.word(), call.second_word(), call.shared());
    default:
      return call();  // FUTEX_TRYLOCK_PI, FUTEX_FD and unknown commands never wait
  }
}

}  // namespace

// glibc's syscall(number, ...), defined with seven named arguments under its name. On x86-64
// and AArch64 Linux a variadic call passes integer arguments exactly as named ones (registers,
// then the stack), so this reads what glibc's own syscall() reads: six argument registers,
// whether the caller set them or not. Named, the pass-through path has no va_list to build: a
// compare and the system call (benchmarks/hotpath, "syscall").
extern "C" __attribute__((visibility("default"))) long coz_syscall_hook(long number, long a, long b,
                                                                        long c, long d, long e,
                                                                        long f) __asm__("syscall");

long coz_syscall_hook(long number, long a, long b, long c, long d, long e, long f) {
  if (__builtin_expect(number != SYS_futex && number != SYS_futex_waitv, 1)) {
    return kernel(number, a, b, c, d, e, f);
  }
  return futex(FutexCall{number, {a, b, c, d, e, f}});
}
