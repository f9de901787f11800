// The delay protocol's real environment (see real_delay_environment.h).
#include "delays/real_delay_environment.h"

#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/fast_clock.h"
#include "base/platform.h"
#include "experiment/in_flight.h"

namespace coz {

uint64_t RealDelayEnvironment::now_ns() {
  return platform::monotonic_ns();
}

uint64_t RealDelayEnvironment::deadline_after(uint64_t ns) {
  return fast_clock::after(ns, platform::monotonic_ns());
}

void RealDelayEnvironment::sleep_ns(uint64_t ns) {
  timespec request = platform::timespec_of(ns);
  int saved = errno;
  // A raw system call: nanosleep() is a cancellation point, and a pause is not the program's. A
  // pause inside a hook (an unlock, say) must not become a point where the program's thread can be
  // cancelled.
  while (syscall(SYS_nanosleep, &request, &request) != 0 && errno == EINTR) {
  }
  errno = saved;
}

void RealDelayEnvironment::inserted(uint64_t ns) {
  if (ns == 0) {
    return;
  }
  for (ProgressPoint* p = points_.latency_points(); p;
       p = p->next_latency.load(std::memory_order_acquire)) {
    uint64_t n = InFlight::count(p->read(p->begin()), p->read(p->end()));
    if (n != 0) {
      p->delay_in_flight_ns().fetch_add(n * ns, std::memory_order_relaxed);
    }
  }
}

}  // namespace coz
