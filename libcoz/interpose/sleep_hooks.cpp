// Sleeping: a thread that sleeps is not woken by another, so it earns no credit; the delays
// inserted while it slept are owed, and it pays them as soon as it wakes, before it does
// anything else (such as a request arriving). Without this, a thread that mostly sleeps (a
// producer paced by sleeps) would pay only at its next blocking call, after the work the delay
// should have postponed.
#include <time.h>
#include <unistd.h>

#include "interpose/hook_support.h"

using coz::real;

namespace {

void pay_after_sleeping() {
  if (coz::hooks_api::active()) {
    int saved = errno;
    coz::hooks_api::catch_up_fully();
    errno = saved;
  }
}

}  // namespace

COZ_EXPORT int nanosleep(const struct timespec* request, struct timespec* remaining) {
  int rc = real().nanosleep(request, remaining);
  pay_after_sleeping();
  return rc;
}

COZ_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* request,
                               struct timespec* remaining) {
  int rc = real().clock_nanosleep(clock, flags, request, remaining);
  pay_after_sleeping();
  return rc;
}

COZ_EXPORT int usleep(useconds_t usec) {
  int rc = real().usleep(usec);
  pay_after_sleeping();
  return rc;
}

COZ_EXPORT unsigned sleep(unsigned seconds) {
  unsigned left = real().sleep(seconds);
  pay_after_sleeping();
  return left;
}
