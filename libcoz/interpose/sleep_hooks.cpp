// Sleeping: a thread that sleeps is not woken by another, so it earns no credit; the delays
// inserted while it slept are owed, and it pays them as soon as it wakes, before it does
// anything else (such as a request arriving). Without this, a thread that mostly sleeps (a
// producer paced by sleeps) would pay only at its next blocking call, after the work the delay
// should have postponed. Each sleep is also timed for off-CPU profiling (wait_hooks.h): its length
// becomes blocked samples of the line that slept.
#include <time.h>
#include <unistd.h>

#include "interpose/hook_support.h"

using coz::real;

namespace {

// Sleeps with `sleep`, timed; then pays (after_wait pays when the sleep was measured).
template <typename F>
__attribute__((always_inline)) inline auto timed_sleep(const void* caller, F&& sleep) {
  coz::wait_hooks::Wait w = coz::wait_hooks::begin();
  auto rc = sleep();
  int saved = errno;
  if (coz::wait_hooks::may_have_waited(w)) {
    coz::hooks_api::after_wait(w, caller, &w);
  } else if (coz::hooks_api::active()) {
    coz::hooks_api::catch_up_fully();
  }
  errno = saved;
  return rc;
}

}  // namespace

#define COZ_CALLER __builtin_return_address(0)

COZ_EXPORT int nanosleep(const struct timespec* request, struct timespec* remaining) {
  return timed_sleep(COZ_CALLER, [=] { return real().nanosleep(request, remaining); });
}

COZ_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* request,
                               struct timespec* remaining) {
  return timed_sleep(COZ_CALLER,
                     [=] { return real().clock_nanosleep(clock, flags, request, remaining); });
}

COZ_EXPORT int usleep(useconds_t usec) {
  return timed_sleep(COZ_CALLER, [=] { return real().usleep(usec); });
}

COZ_EXPORT unsigned sleep(unsigned seconds) {
  return timed_sleep(COZ_CALLER, [=] { return real().sleep(seconds); });
}
