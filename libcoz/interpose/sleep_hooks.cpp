// Sleeping: a thread that sleeps is not woken by another, so it earns no credit; the delays
// inserted while it slept are owed, and it pays them as soon as it wakes, before it does
// anything else (such as a request arriving). Without this, a thread that mostly sleeps (a
// producer paced by sleeps) would pay only at its next blocking call, after the work the delay
// should have postponed. Each sleep is also timed for off-CPU profiling (wait_timing.h): its length
// becomes blocked samples of the line that slept.
#include <time.h>
#include <unistd.h>

#include "interpose/hook_support.h"

using coz::real;
using coz::hooks::sleeping;

COZ_EXPORT int nanosleep(const struct timespec* request, struct timespec* remaining) {
  return sleeping(COZ_CALLER, [=] { return real().nanosleep(request, remaining); });
}

COZ_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* request,
                               struct timespec* remaining) {
  return sleeping(COZ_CALLER,
                  [=] { return real().clock_nanosleep(clock, flags, request, remaining); });
}

COZ_EXPORT int usleep(useconds_t usec) {
  return sleeping(COZ_CALLER, [=] { return real().usleep(usec); });
}

COZ_EXPORT unsigned sleep(unsigned seconds) {
  return sleeping(COZ_CALLER, [=] { return real().sleep(seconds); });
}
