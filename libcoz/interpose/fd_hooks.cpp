// Hooks for the calls that close or replace descriptors: the profiler's own (own_fds.h) stay
// open, and for the program the call behaves as if they were not there, as without the
// profiler: close() of one fails with EBADF (the program never opened it), close_range() and
// closefrom() close everything else, and dup2()/dup3() onto one gets the number it asked for
// (the profiler's descriptor moves away first).
#include <errno.h>
#include <unistd.h>

#include "interpose/hook_support.h"
#include "own_fds.h"

using coz::real;
namespace own_fds = coz::own_fds;

COZ_EXPORT int close(int fd) {
  if (own_fds::is_ours(fd)) {
    errno = EBADF;
    return -1;
  }
  return real().close(fd);
}

COZ_EXPORT int close_range(unsigned int first, unsigned int last, int flags) {
  return own_fds::close_range_except_ours(first, last, flags);
}

COZ_EXPORT void closefrom(int lowfd) {
  if (lowfd < 0) {
    lowfd = 0;
  }
  if (own_fds::close_range_except_ours(static_cast<unsigned>(lowfd), ~0U, 0) == 0) {
    return;
  }
  // Kernels before 5.9 have no close_range: close each open descriptor, as glibc does.
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = lowfd; fd < max; fd++) {
    if (!own_fds::is_ours(static_cast<int>(fd))) {
      real().close(static_cast<int>(fd));
    }
  }
}

namespace {

// dup2/dup3 onto `newfd`: with the table locked, move the profiler's descriptor out of the way.
template <typename Call>
int duplicating(int oldfd, int newfd, Call&& call) {
  if (!own_fds::is_ours(oldfd) && !own_fds::is_ours(newfd)) {
    return call();
  }
  if (own_fds::is_ours(oldfd)) {
    errno = EBADF;  // not a descriptor the program opened
    return -1;
  }
  own_fds::Lock lock;
  if (!own_fds::make_room(newfd)) {
    return -1;
  }
  return call();
}

}  // namespace

COZ_EXPORT int dup2(int oldfd, int newfd) {
  return duplicating(oldfd, newfd, [=] { return real().dup2(oldfd, newfd); });
}

COZ_EXPORT int dup3(int oldfd, int newfd, int flags) {
  return duplicating(oldfd, newfd, [=] { return real().dup3(oldfd, newfd, flags); });
}
