// The runtime calls the hooks may make (see hooks_api.h): each forwards to the active runtime,
// marking the thread as inside the runtime meanwhile.
#include "runtime/hooks_api.h"

#include "runtime/runtime.h"

namespace coz::hooks_api {
namespace {

// Depth of runtime work on this thread (1 for good in the profiler's thread).
__attribute__((tls_model("initial-exec"))) thread_local int t_inside = 0;

using Inside = InsideRuntime;

// The runtime to act through, or nullptr.
Runtime* acting() {
  return t_inside == 0 ? Runtime::active() : nullptr;
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

}  // namespace

bool active() {
  return acting() != nullptr;
}

void before_wake(const void* key) {
  with_runtime([&](Runtime* rt) { rt->before_wake(key); });
}
void after_release() {
  with_runtime([](Runtime* rt) { rt->after_release(); });
}
void lock_acquired() {
  with_runtime([](Runtime* rt) { rt->lock_acquired(); });
}
void lock_released() {
  with_runtime([](Runtime* rt) { rt->lock_released(); });
}
void before_block() {
  with_runtime([](Runtime* rt) { rt->before_block(); });
}
void after_block(const void* key, bool woken) {
  with_runtime([&](Runtime* rt) { rt->after_block(key, woken); });
}
void catch_up() {
  with_runtime([](Runtime* rt) { rt->catch_up(); });
}
void catch_up_fully() {
  with_runtime([](Runtime* rt) { rt->catch_up_fully(); });
}

LocalDelays current_delays() {
  return with_runtime(LocalDelays{}, [](Runtime* rt) { return rt->current_delays(); });
}
void thread_created() {
  with_runtime([](Runtime* rt) { rt->thread_created(); });
}
void thread_gone() {
  with_runtime([](Runtime* rt) { rt->thread_gone(); });
}
void on_thread_start(const LocalDelays& inherited) {
  with_runtime([&](Runtime* rt) { rt->on_thread_start(inherited); });
}
const void* thread_key(pthread_t thread) {
  return Runtime::thread_handoff_key(thread);
}

bool owns_this_process() {
  return with_runtime(false, [](Runtime* rt) { return rt->owns_this_process(); });
}
void shutdown() {
  with_runtime([](Runtime* rt) { rt->shutdown(); });
}

InsideRuntime::InsideRuntime() {
  t_inside++;
}
InsideRuntime::~InsideRuntime() {
  t_inside--;
}

void mark_profiler_thread() {
  t_inside = 1;
}

}  // namespace coz::hooks_api
