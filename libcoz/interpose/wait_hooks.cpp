// Hooks for the blocking calls a thread makes to wait on something outside the program's threads:
// files and pipes, sockets, poll/select/epoll, fsync, child processes, file locks and System V IPC
// held by other processes (sleeps are in sleep_hooks.cpp). Each is timed for off-CPU profiling
// (hooks/wait_timing.h): a call that did not wait costs a few loads; one that waited becomes
// blocked samples of its calling line, and then the thread pays what others inserted meanwhile, as
// after a sleep (no thread of the program woke it, so no credit). Between the processes of a run,
// pipe writes, and the reads, polls and waits for children they end, hand over delay counts
// (hooks/fd_keys.h); a socket has no key, so the socket-only calls (send, recv and their kin)
// do not look for one. Results and errno are the real call's. Each _FORTIFY_SOURCE form (a
// buffer-size check, then the call: what fortified builds, Debian's and Ubuntu's packages among
// them, call when a length is not a constant) sits under its plain form with the same rule.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interpose/hook_support.h"

using coz::real;
using coz::hooks::on_child;
using coz::hooks::on_fd;
using coz::hooks::timed;
namespace hooks_api = coz::hooks_api;

namespace {
// A poll that returned ready descriptors: the first that is readable (or hung up) woke it.
auto first_ready(const struct pollfd* fds, nfds_t n) {
  return [fds, n](int rc) {
    for (nfds_t i = 0; rc > 0 && fds && i < n; i++) {
      if (fds[i].revents & (POLLIN | POLLHUP)) {
        return hooks_api::WaitFor{fds[i].fd, 0};
      }
    }
    return hooks_api::WaitFor{};
  };
}
// An epoll_wait or select that returned ready descriptors (it does not say which woke it).
hooks_api::WaitFor any_ready(int rc) {
  hooks_api::WaitFor w;
  w.ready = rc > 0;
  return w;
}

}  // namespace

COZ_EXPORT ssize_t read(int fd, void* buf, size_t n) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().read(fd, buf, n); });
}
COZ_EXPORT ssize_t __read_chk(int fd, void* buf, size_t n, size_t size) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().__read_chk(fd, buf, n, size); });
}
COZ_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  coz::hooks_api::before_write(fd);
  return timed(COZ_CALLER, [=] { return real().write(fd, buf, n); });
}
COZ_EXPORT ssize_t readv(int fd, const struct iovec* iov, int n) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().readv(fd, iov, n); });
}
COZ_EXPORT ssize_t writev(int fd, const struct iovec* iov, int n) {
  coz::hooks_api::before_write(fd);
  return timed(COZ_CALLER, [=] { return real().writev(fd, iov, n); });
}
COZ_EXPORT ssize_t pread(int fd, void* buf, size_t n, off_t at) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().pread(fd, buf, n, at); });
}
COZ_EXPORT ssize_t __pread_chk(int fd, void* buf, size_t n, off_t at, size_t size) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().__pread_chk(fd, buf, n, at, size); });
}
COZ_EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  coz::hooks_api::before_write(fd);
  return timed(COZ_CALLER, [=] { return real().pwrite(fd, buf, n, at); });
}
COZ_EXPORT ssize_t pread64(int fd, void* buf, size_t n, off64_t at) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().pread64(fd, buf, n, at); });
}
COZ_EXPORT ssize_t __pread64_chk(int fd, void* buf, size_t n, off64_t at, size_t size) {
  return timed(COZ_CALLER, on_fd(fd), [=] { return real().__pread64_chk(fd, buf, n, at, size); });
}
COZ_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t at) {
  coz::hooks_api::before_write(fd);
  return timed(COZ_CALLER, [=] { return real().pwrite64(fd, buf, n, at); });
}

COZ_EXPORT ssize_t recv(int fd, void* buf, size_t n, int flags) {
  return timed(COZ_CALLER, [=] { return real().recv(fd, buf, n, flags); });
}
COZ_EXPORT ssize_t __recv_chk(int fd, void* buf, size_t n, size_t size, int flags) {
  return timed(COZ_CALLER, [=] { return real().__recv_chk(fd, buf, n, size, flags); });
}
COZ_EXPORT ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from,
                            socklen_t* len) {
  return timed(COZ_CALLER, [=] { return real().recvfrom(fd, buf, n, flags, from, len); });
}
COZ_EXPORT ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t size, int flags,
                                  struct sockaddr* from, socklen_t* len) {
  return timed(COZ_CALLER,
               [=] { return real().__recvfrom_chk(fd, buf, n, size, flags, from, len); });
}
COZ_EXPORT ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  return timed(COZ_CALLER, [=] { return real().recvmsg(fd, msg, flags); });
}
COZ_EXPORT ssize_t send(int fd, const void* buf, size_t n, int flags) {
  return timed(COZ_CALLER, [=] { return real().send(fd, buf, n, flags); });
}
COZ_EXPORT ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to,
                          socklen_t len) {
  return timed(COZ_CALLER, [=] { return real().sendto(fd, buf, n, flags, to, len); });
}
COZ_EXPORT ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  return timed(COZ_CALLER, [=] { return real().sendmsg(fd, msg, flags); });
}
COZ_EXPORT int recvmmsg(int fd, struct mmsghdr* msgs, unsigned int n, int flags,
                        struct timespec* timeout) {
  return timed(COZ_CALLER, [=] { return real().recvmmsg(fd, msgs, n, flags, timeout); });
}
COZ_EXPORT int sendmmsg(int fd, struct mmsghdr* msgs, unsigned int n, int flags) {
  return timed(COZ_CALLER, [=] { return real().sendmmsg(fd, msgs, n, flags); });
}
COZ_EXPORT ssize_t sendfile(int out, int in, off_t* at, size_t n) {
  return timed(COZ_CALLER, [=] { return real().sendfile(out, in, at, n); });
}
COZ_EXPORT ssize_t splice(int in, loff_t* in_at, int out, loff_t* out_at, size_t n,
                          unsigned int flags) {
  return timed(COZ_CALLER, [=] { return real().splice(in, in_at, out, out_at, n, flags); });
}
COZ_EXPORT int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  return timed(COZ_CALLER, [=] { return real().accept(fd, addr, len); });
}
COZ_EXPORT int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  return timed(COZ_CALLER, [=] { return real().accept4(fd, addr, len, flags); });
}
COZ_EXPORT int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  return timed(COZ_CALLER, [=] { return real().connect(fd, addr, len); });
}

COZ_EXPORT int poll(struct pollfd* fds, nfds_t n, int timeout) {
  return timed(COZ_CALLER, first_ready(fds, n), [=] { return real().poll(fds, n, timeout); });
}
COZ_EXPORT int __poll_chk(struct pollfd* fds, nfds_t n, int timeout, size_t size) {
  return timed(COZ_CALLER, first_ready(fds, n),
               [=] { return real().__poll_chk(fds, n, timeout, size); });
}
COZ_EXPORT int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout,
                     const sigset_t* mask) {
  return timed(COZ_CALLER, first_ready(fds, n),
               [=] { return real().ppoll(fds, n, timeout, mask); });
}
COZ_EXPORT int __ppoll_chk(struct pollfd* fds, nfds_t n, const struct timespec* timeout,
                           const sigset_t* mask, size_t size) {
  return timed(COZ_CALLER, first_ready(fds, n),
               [=] { return real().__ppoll_chk(fds, n, timeout, mask, size); });
}
COZ_EXPORT int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  return timed(COZ_CALLER, any_ready, [=] { return real().select(n, r, w, e, timeout); });
}
COZ_EXPORT int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout,
                       const sigset_t* mask) {
  return timed(COZ_CALLER, any_ready, [=] { return real().pselect(n, r, w, e, timeout, mask); });
}
COZ_EXPORT int epoll_wait(int ep, struct epoll_event* events, int max, int timeout) {
  return timed(COZ_CALLER, any_ready, [=] { return real().epoll_wait(ep, events, max, timeout); });
}
COZ_EXPORT int epoll_pwait(int ep, struct epoll_event* events, int max, int timeout,
                           const sigset_t* mask) {
  return timed(COZ_CALLER, any_ready,
               [=] { return real().epoll_pwait(ep, events, max, timeout, mask); });
}

COZ_EXPORT int fsync(int fd) {
  return timed(COZ_CALLER, [=] { return real().fsync(fd); });
}
COZ_EXPORT int fdatasync(int fd) {
  return timed(COZ_CALLER, [=] { return real().fdatasync(fd); });
}

COZ_EXPORT pid_t wait(int* status) {
  return timed(COZ_CALLER, on_child(), [=] { return real().wait(status); });
}
COZ_EXPORT pid_t waitpid(pid_t pid, int* status, int options) {
  return timed(COZ_CALLER, on_child(), [=] { return real().waitpid(pid, status, options); });
}
COZ_EXPORT int waitid(idtype_t type, id_t id, siginfo_t* info, int options) {
  return timed(
      COZ_CALLER,
      [info](int rc) {
        return hooks_api::WaitFor{-1, rc == 0 && info ? info->si_pid : 0};
      },
      [=] { return real().waitid(type, id, info, options); });
}
COZ_EXPORT pid_t wait4(pid_t pid, int* status, int options, struct rusage* usage) {
  return timed(COZ_CALLER, on_child(), [=] { return real().wait4(pid, status, options, usage); });
}

COZ_EXPORT int flock(int fd, int op) {
  return timed(COZ_CALLER, [=] { return real().flock(fd, op); });
}
COZ_EXPORT int lockf(int fd, int op, off_t n) {
  return timed(COZ_CALLER, [=] { return real().lockf(fd, op, n); });
}
COZ_EXPORT ssize_t msgrcv(int q, void* msg, size_t n, long type, int flags) {
  return timed(COZ_CALLER, [=] { return real().msgrcv(q, msg, n, type, flags); });
}
COZ_EXPORT int msgsnd(int q, const void* msg, size_t n, int flags) {
  return timed(COZ_CALLER, [=] { return real().msgsnd(q, msg, n, flags); });
}
COZ_EXPORT int semop(int set, struct sembuf* ops, size_t n) {
  return timed(COZ_CALLER, [=] { return real().semop(set, ops, n); });
}
COZ_EXPORT int semtimedop(int set, struct sembuf* ops, size_t n, const struct timespec* timeout) {
  return timed(COZ_CALLER, [=] { return real().semtimedop(set, ops, n, timeout); });
}
