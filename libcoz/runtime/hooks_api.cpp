// The runtime calls the hooks may make (see hooks_api.h): the blocking and waking calls go
// straight to the delay protocol with the calling thread's state; the others to the runtime. Each
// marks the thread as inside the runtime meanwhile.
#include "hooks/hooks_api.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "base/platform.h"
#include "runtime/count_run.h"
#include "runtime/runtime.h"

namespace coz {

namespace hooks_api {
namespace {

using quiet_hooks::t_inside;
using Inside = InsideRuntime;

// The runtime to act through, or nullptr.
Runtime* acting() {
  return t_inside == 0 && wait_timing::runtime_here() ? Runtime::active() : nullptr;
}

// Calls `f(rt)` inside the runtime when one is acting; otherwise returns `fallback`.
template <typename T, typename F>
T with_runtime(T fallback, F&& f) {
  Runtime* rt = acting();
  if (!rt) {
    return fallback;
  }
  Inside inside;
  return f(rt);
}
template <typename F>
void with_runtime(F&& f) {
  if (Runtime* rt = acting()) {
    Inside inside;
    f(rt);
  }
}

// Calls `f(protocol, state)` for the calling thread, when a runtime is acting and samples it.
template <typename F>
void with_thread(F&& f) {
  Runtime* rt = acting();
  ThreadState* state = t_thread_state;
  if (rt && state) {
    Inside inside;
    f(rt->delays(), *state);
  }
}

}  // namespace

bool active() {
  return acting() != nullptr;
}

void before_wake(const void* key) {
  with_thread([&](DelayProtocol& p, ThreadState& t) { p.before_wake(t, key); });
}
void after_release() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.catch_up(t); });
}
void lock_acquired() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.lock_acquired(t); });
}
void lock_released() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.lock_released(t); });
}
void before_block() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.before_block(t); });
}
void before_lock_block() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.before_lock_block(t); });
}
void before_meeting() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.before_meeting(t); });
}
void after_block(const void* key, bool woken) {
  with_thread([&](DelayProtocol& p, ThreadState& t) { p.after_block(t, key, woken); });
}
void catch_up() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.catch_up(t); });
}
void catch_up_in_full() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.catch_up_in_full(t); });
}
void catch_up_fully() {
  with_thread([](DelayProtocol& p, ThreadState& t) { p.catch_up_fully(t); });
}

void after_wait(const wait_timing::Wait& wait, const void* caller, const void* stack,
                WaitFor waker) {
  Runtime* rt = acting();
  // Not in a vfork child: it runs on the parent's thread state, which the parent resumes.
  if (rt && wait.thread == t_thread_state && rt->owns_this_process()) {
    Inside inside;
    if (!rt->blocked().confirm_wait(*wait.thread)) {
      return;  // it took a while, but on the CPU: as a call that did not wait
    }
    uint64_t waited =
        rt->blocked().after_wait(*wait.thread, wait, reinterpret_cast<uintptr_t>(caller),
                                 reinterpret_cast<uintptr_t>(stack));
    if (g_in_tree.load(std::memory_order_relaxed) && (waker.fd >= 0 || waker.pid > 0)) {
      // The key read afresh (a slow path): a number the program closed through a libc-internal
      // call (fclose, pclose) and reused has no stale key here. The credit keeps what the
      // thread owed as the wait began.
      rt->delays().wait_began(*wait.thread, wait.word);
      rt->woken_across(
          *wait.thread,
          waker.pid > 0 ? FdKeys::of_process(waker.pid) : rt->fd_keys().fresh(waker.fd), waited);
      rt->delays().wait_ended(*wait.thread);
    }
    if (waker.fd >= 0 || waker.ready) {
      rt->woken_by_member(*wait.thread, waker.fd);
    }
    rt->delays().catch_up_fully(*wait.thread);
  }
}

namespace {

// Calls `f(runtime, state)` for the calling thread when a runtime acts in this process and the
// process is part of a tree (its waits and wakes may meet another process's).
template <typename F>
void in_tree(F&& f) {
  Runtime* rt = acting();
  ThreadState* state = t_thread_state;
  if (rt && state && g_in_tree.load(std::memory_order_relaxed) && rt->owns_this_process()) {
    Inside inside;
    f(*rt, *state);
  }
}

}  // namespace

void before_write_slowly(int fd) {
  in_tree([fd](Runtime& rt, ThreadState& state) {
    if (const void* key = rt.fd_keys().key(fd)) {
      rt.wake_across(state, key);
    }
  });
}

void wake_across(const void* key) {
  in_tree([key](Runtime& rt, ThreadState& state) { rt.wake_across(state, key); });
}

void woken_across(const void* key) {
  in_tree([key](Runtime& rt, ThreadState& state) {
    // The time blocked caps the credit under load amplification, as after_block's does.
    uint64_t blocked =
        state.block_start_ns != 0 ? platform::monotonic_ns() - state.block_start_ns : UINT64_MAX;
    rt.woken_across(state, key, blocked);
  });
}

void before_exec() {
  if (Runtime* rt = acting()) {
    rt->before_exec();
  }
}

void forget_fd(int fd, bool and_above) {
  if (Runtime* rt = Runtime::active(); rt && rt->owns_this_process()) {
    if (and_above) {
      rt->fd_keys().forget_from(fd);
    } else {
      rt->fd_keys().forget(fd);
    }
  }
}

LocalDelays current_delays() {
  ThreadState* state = t_thread_state;
  return acting() && state ? state->delays : LocalDelays{};
}
void thread_created() {
  with_runtime([](Runtime* rt) { rt->threads().created(); });
}
void thread_gone() {
  with_runtime([](Runtime* rt) { rt->threads().gone(); });
}
void on_thread_start(const LocalDelays& inherited) {
  with_runtime([&](Runtime* rt) { rt->threads().on_thread_start(inherited); });
}
const void* thread_key(pthread_t thread) {
  return ThreadLife::handoff_key(thread);
}

bool owns_this_process() {
  return with_runtime(false, [](Runtime* rt) { return rt->owns_this_process(); });
}
void shutdown() {
  with_runtime([](Runtime* rt) { rt->shutdown(); });
}
void leaving() {
  if (owns_this_process()) {
    shutdown();
  }
  count_run::finish();  // which knows a vfork child itself
}
size_t next_thread_pad() {
  return count_run::next_thread_pad();
}

}  // namespace hooks_api
}  // namespace coz
