// Hooks for the calls that close or replace descriptors: the profiler's own (own_fds.h) stay
// open, and for the program the call behaves as if they were not there, as without the
// profiler: close() of one fails with EBADF (the program never opened it), close_range() and
// closefrom() close everything else, and dup2()/dup3() onto one gets the number it asked for
// (the profiler's descriptor moves away first). The program's setrlimit()/getrlimit() of the
// descriptor limit wait while the profiler raises it for a moment to place a descriptor above it.
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/own_fds.h"
#include "interpose/hook_support.h"

using coz::real;
namespace own_fds = coz::own_fds;

namespace {

// One of the profiler's descriptors, in the process that holds it (not a vfork child, whose
// descriptors are its own copies).
bool protected_fd(int fd) {
  return own_fds::is_ours(fd) && own_fds::owned_here();
}

}  // namespace

COZ_EXPORT int close(int fd) {
  if (protected_fd(fd)) {
    errno = EBADF;
    return -1;
  }
  coz::hooks_api::forget_fd(fd);
  return real().close(fd);
}

COZ_EXPORT int close_range(unsigned int first, unsigned int last, int flags) {
  coz::hooks_api::forget_fd(static_cast<int>(first), true);
  if (!own_fds::owned_here()) {
    return static_cast<int>(syscall(SYS_close_range, first, last, flags));
  }
  return own_fds::close_range_except_ours(first, last, flags);
}

COZ_EXPORT void closefrom(int lowfd) {
  if (lowfd < 0) {
    lowfd = 0;
  }
  if (close_range(static_cast<unsigned>(lowfd), ~0U, 0) == 0) {
    return;
  }
  // Kernels before 5.9 have no close_range: close each open descriptor, as glibc does.
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = lowfd; fd < max; fd++) {
    close(static_cast<int>(fd));
  }
}

namespace {

// dup2/dup3 onto `newfd`: with the table locked, move the profiler's descriptor out of the way.
// The call's own errors come first, so a failing call never moves the descriptor.
template <typename Call>
int duplicating(int oldfd, int newfd, bool same_is_error, Call&& call) {
  coz::hooks_api::forget_fd(newfd);
  if (!protected_fd(oldfd) && !protected_fd(newfd)) {
    return call();
  }
  if (protected_fd(oldfd) || fcntl(oldfd, F_GETFD) < 0) {
    errno = EBADF;  // not a descriptor the program opened
    return -1;
  }
  if (oldfd == newfd && same_is_error) {
    errno = EINVAL;
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
  return duplicating(oldfd, newfd, false, [=] { return real().dup2(oldfd, newfd); });
}

COZ_EXPORT int dup3(int oldfd, int newfd, int flags) {
  return duplicating(oldfd, newfd, true, [=] { return real().dup3(oldfd, newfd, flags); });
}

COZ_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit* limit) noexcept {
  if (resource != RLIMIT_NOFILE) {
    return real().setrlimit(resource, limit);
  }
  own_fds::Lock lock;
  return real().setrlimit(resource, limit);
}

COZ_EXPORT int getrlimit(__rlimit_resource_t resource, struct rlimit* limit) noexcept {
  if (resource != RLIMIT_NOFILE) {
    return real().getrlimit(resource, limit);
  }
  own_fds::Lock lock;
  return real().getrlimit(resource, limit);
}
