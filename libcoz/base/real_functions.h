// The typed table of the real functions behind the hooks, resolved with dlsym(RTLD_NEXT). The
// whole table is resolved at once, early in the library constructor, so a replacement allocator
// that takes a mutex never finds a hook half-resolved; any later first call resolves it too.
// Resolution is idempotent: two racing first callers store the same pointers.
#pragma once

#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include <atomic>
#include <cstddef>

namespace coz {

// X(name, return type, parameter list)
#define COZ_REAL_FUNCTIONS(X)                                                                 \
  X(pthread_create, int, (pthread_t*, const pthread_attr_t*, void* (*)(void*), void*))        \
  X(pthread_exit, void, (void*))                                                              \
  X(pthread_join, int, (pthread_t, void**))                                                   \
  X(pthread_tryjoin_np, int, (pthread_t, void**))                                             \
  X(pthread_timedjoin_np, int, (pthread_t, void**, const struct timespec*))                   \
  X(pthread_clockjoin_np, int, (pthread_t, void**, clockid_t, const struct timespec*))        \
  X(pthread_mutex_lock, int, (pthread_mutex_t*))                                              \
  X(pthread_mutex_trylock, int, (pthread_mutex_t*))                                           \
  X(pthread_mutex_timedlock, int, (pthread_mutex_t*, const struct timespec*))                 \
  X(pthread_mutex_clocklock, int, (pthread_mutex_t*, clockid_t, const struct timespec*))      \
  X(pthread_mutex_unlock, int, (pthread_mutex_t*))                                            \
  X(pthread_cond_wait, int, (pthread_cond_t*, pthread_mutex_t*))                              \
  X(pthread_cond_timedwait, int, (pthread_cond_t*, pthread_mutex_t*, const struct timespec*)) \
  X(pthread_cond_clockwait, int,                                                              \
    (pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*))                   \
  X(pthread_cond_signal, int, (pthread_cond_t*))                                              \
  X(pthread_cond_broadcast, int, (pthread_cond_t*))                                           \
  X(pthread_rwlock_rdlock, int, (pthread_rwlock_t*))                                          \
  X(pthread_rwlock_tryrdlock, int, (pthread_rwlock_t*))                                       \
  X(pthread_rwlock_timedrdlock, int, (pthread_rwlock_t*, const struct timespec*))             \
  X(pthread_rwlock_clockrdlock, int, (pthread_rwlock_t*, clockid_t, const struct timespec*))  \
  X(pthread_rwlock_wrlock, int, (pthread_rwlock_t*))                                          \
  X(pthread_rwlock_trywrlock, int, (pthread_rwlock_t*))                                       \
  X(pthread_rwlock_timedwrlock, int, (pthread_rwlock_t*, const struct timespec*))             \
  X(pthread_rwlock_clockwrlock, int, (pthread_rwlock_t*, clockid_t, const struct timespec*))  \
  X(pthread_rwlock_unlock, int, (pthread_rwlock_t*))                                          \
  X(pthread_barrier_wait, int, (pthread_barrier_t*))                                          \
  X(sem_wait, int, (sem_t*))                                                                  \
  X(sem_trywait, int, (sem_t*))                                                               \
  X(sem_timedwait, int, (sem_t*, const struct timespec*))                                     \
  X(sem_clockwait, int, (sem_t*, clockid_t, const struct timespec*))                          \
  X(sem_post, int, (sem_t*))                                                                  \
  X(kill, int, (pid_t, int))                                                                  \
  X(pthread_kill, int, (pthread_t, int))                                                      \
  X(pthread_sigqueue, int, (pthread_t, int, const union sigval))                              \
  X(sigwait, int, (const sigset_t*, int*))                                                    \
  X(sigwaitinfo, int, (const sigset_t*, siginfo_t*))                                          \
  X(sigtimedwait, int, (const sigset_t*, siginfo_t*, const struct timespec*))                 \
  X(sigsuspend, int, (const sigset_t*))                                                       \
  X(sigpending, int, (sigset_t*))                                                             \
  X(sigset, sighandler_t, (int, sighandler_t))                                                \
  X(sigaction, int, (int, const struct sigaction*, struct sigaction*))                        \
  X(sigprocmask, int, (int, const sigset_t*, sigset_t*))                                      \
  X(pthread_sigmask, int, (int, const sigset_t*, sigset_t*))                                  \
  X(exit, void, (int))                                                                        \
  X(quick_exit, void, (int))                                                                  \
  X(_exit, void, (int))                                                                       \
  X(_Exit, void, (int))                                                                       \
  X(nanosleep, int, (const struct timespec*, struct timespec*))                               \
  X(clock_nanosleep, int, (clockid_t, int, const struct timespec*, struct timespec*))         \
  X(usleep, int, (useconds_t))                                                                \
  X(sleep, unsigned, (unsigned))                                                              \
  X(close, int, (int))                                                                        \
  X(dup2, int, (int, int))                                                                    \
  X(dup3, int, (int, int, int))                                                               \
  X(setrlimit, int, (__rlimit_resource_t, const struct rlimit*))                              \
  X(getrlimit, int, (__rlimit_resource_t, struct rlimit*))                                    \
  X(execve, int, (const char*, char* const*, char* const*))                                   \
  X(execv, int, (const char*, char* const*))                                                  \
  X(execvp, int, (const char*, char* const*))                                                 \
  X(execvpe, int, (const char*, char* const*, char* const*))                                  \
  X(fexecve, int, (int, char* const*, char* const*))                                          \
  X(execveat, int, (int, const char*, char* const*, char* const*, int))                       \
  X(posix_spawn, int,                                                                         \
    (pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,        \
     char* const*, char* const*))                                                             \
  X(posix_spawnp, int,                                                                        \
    (pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,        \
     char* const*, char* const*))                                                             \
  X(system, int, (const char*))                                                               \
  X(popen, FILE*, (const char*, const char*))                                                 \
  X(read, ssize_t, (int, void*, size_t))                                                      \
  X(write, ssize_t, (int, const void*, size_t))                                               \
  X(readv, ssize_t, (int, const struct iovec*, int))                                          \
  X(writev, ssize_t, (int, const struct iovec*, int))                                         \
  X(pread, ssize_t, (int, void*, size_t, off_t))                                              \
  X(pwrite, ssize_t, (int, const void*, size_t, off_t))                                       \
  X(pread64, ssize_t, (int, void*, size_t, off64_t))                                          \
  X(pwrite64, ssize_t, (int, const void*, size_t, off64_t))                                   \
  X(recv, ssize_t, (int, void*, size_t, int))                                                 \
  X(recvfrom, ssize_t, (int, void*, size_t, int, struct sockaddr*, socklen_t*))               \
  X(recvmsg, ssize_t, (int, struct msghdr*, int))                                             \
  X(send, ssize_t, (int, const void*, size_t, int))                                           \
  X(sendto, ssize_t, (int, const void*, size_t, int, const struct sockaddr*, socklen_t))      \
  X(sendmsg, ssize_t, (int, const struct msghdr*, int))                                       \
  X(accept, int, (int, struct sockaddr*, socklen_t*))                                         \
  X(accept4, int, (int, struct sockaddr*, socklen_t*, int))                                   \
  X(connect, int, (int, const struct sockaddr*, socklen_t))                                   \
  X(poll, int, (struct pollfd*, nfds_t, int))                                                 \
  X(ppoll, int, (struct pollfd*, nfds_t, const struct timespec*, const sigset_t*))            \
  X(select, int, (int, fd_set*, fd_set*, fd_set*, struct timeval*))                           \
  X(pselect, int, (int, fd_set*, fd_set*, fd_set*, const struct timespec*, const sigset_t*))  \
  X(epoll_wait, int, (int, struct epoll_event*, int, int))                                    \
  X(epoll_pwait, int, (int, struct epoll_event*, int, int, const sigset_t*))                  \
  X(fsync, int, (int))                                                                        \
  X(fdatasync, int, (int))                                                                    \
  X(wait, pid_t, (int*))                                                                      \
  X(waitpid, pid_t, (pid_t, int*, int))                                                       \
  X(waitid, int, (idtype_t, id_t, siginfo_t*, int))                                           \
  X(wait4, pid_t, (pid_t, int*, int, struct rusage*))                                         \
  X(recvmmsg, int, (int, struct mmsghdr*, unsigned int, int, struct timespec*))               \
  X(sendmmsg, int, (int, struct mmsghdr*, unsigned int, int))                                 \
  X(sendfile, ssize_t, (int, int, off_t*, size_t))                                            \
  X(splice, ssize_t, (int, loff_t*, int, loff_t*, size_t, unsigned int))                      \
  X(flock, int, (int, int))                                                                   \
  X(lockf, int, (int, int, off_t))                                                            \
  X(msgrcv, ssize_t, (int, void*, size_t, long, int))                                         \
  X(msgsnd, int, (int, const void*, size_t, int))                                             \
  X(semop, int, (int, struct sembuf*, size_t))                                                \
  X(semtimedop, int, (int, struct sembuf*, size_t, const struct timespec*))                   \
  X(__read_chk, ssize_t, (int, void*, size_t, size_t))                                        \
  X(__pread_chk, ssize_t, (int, void*, size_t, off_t, size_t))                                \
  X(__pread64_chk, ssize_t, (int, void*, size_t, off64_t, size_t))                            \
  X(__recv_chk, ssize_t, (int, void*, size_t, size_t, int))                                   \
  X(__recvfrom_chk, ssize_t, (int, void*, size_t, size_t, int, struct sockaddr*, socklen_t*)) \
  X(__poll_chk, int, (struct pollfd*, nfds_t, int, size_t))                                   \
  X(__ppoll_chk, int, (struct pollfd*, nfds_t, const struct timespec*, const sigset_t*, size_t))

struct RealFunctions {
#define COZ_REAL_FIELD(name, ret, params) ret(*name) params;
  COZ_REAL_FUNCTIONS(COZ_REAL_FIELD)
#undef COZ_REAL_FIELD
};

namespace real_functions {
extern RealFunctions g_real;
extern std::atomic<bool> g_resolved;
// Resolves the whole table (idempotent) and returns it.
const RealFunctions& resolve();
}  // namespace real_functions

// The table, resolved on first call. Inline: every hook calls it, the fast path too.
inline const RealFunctions& real() {
  if (__builtin_expect(real_functions::g_resolved.load(std::memory_order_acquire), 1)) {
    return real_functions::g_real;
  }
  return real_functions::resolve();
}

// A library preloaded after the runtime (LD_PRELOAD order) that defines functions the runtime
// hooks: it sits between the hooks and libc, so it sees the runtime's calls (its own thread, its
// thread start routine) rather than the program's. Writes its path and the functions' names
// (comma-separated) into `out` and returns true; false when no such library is loaded.
bool wrapped_after_runtime(char* out, size_t size);

}  // namespace coz
