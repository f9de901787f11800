// Hooks for starting another image (the exec family, posix_spawn, system, popen): the program's
// mask blocks the sampling signal only in its own view (signal_hooks.cpp), so while the program
// blocks it the kernel's mask blocks it too for the length of the call; a new image or child
// inherits the mask the program set. A failed exec gives the profiler its signal back.
#include <alloca.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/own_fds.h"
#include "base/platform.h"
#include "interpose/hook_support.h"
#include "signals/sample_signal.h"

using coz::real;
namespace api = coz::hooks_api;
namespace sample_signal = coz::sample_signal;

namespace {

// While one lives, the calling thread's kernel mask blocks the sampling signal if the program's
// view does. For an exec (`replacing`): samples already pending are dropped, not passed on to the
// new image, and what the program sent itself meanwhile is made pending in the kernel, where the
// new image finds it as it would natively.
class ProgramMask {
 public:
  explicit ProgramMask(bool replacing) {
    if (!sample_signal::installed() || !sample_signal::program_blocks()) {
      return;
    }
    sigemptyset(&ours_);
    sigaddset(&ours_, coz::platform::sample_signal());
    real().pthread_sigmask(SIG_BLOCK, &ours_, nullptr);
    blocked_ = true;
    if (replacing) {
      drop_pending_samples();
    }
  }
  ~ProgramMask() {
    if (blocked_) {
      // Back from a failed exec or from a spawn: what arrived meanwhile reaches the profiler's
      // handler, which holds the program's signals again.
      real().pthread_sigmask(SIG_UNBLOCK, &ours_, nullptr);
    }
  }
  ProgramMask(const ProgramMask&) = delete;
  ProgramMask& operator=(const ProgramMask&) = delete;

 private:
  void drop_pending_samples() {
    bool mine = api::owns_this_process();  // not a vfork child: the held signals are ours
    const timespec now = {0, 0};
    siginfo_t info;
    while (real().sigtimedwait(&ours_, &info, &now) > 0) {
      if (!sample_signal::is_sample(&info, coz::own_fds::is_ours(info.si_fd)) && mine) {
        sample_signal::hold(&info);  // the program's own: pending again below
      }
    }
    if (mine) {
      sample_signal::resend_held();  // blocked now: pending in the kernel, across the exec
    }
  }

  sigset_t ours_;
  bool blocked_ = false;
};

// How many arguments follow `ap` up to the null pointer.
size_t count_args(va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  size_t n = 0;
  while (va_arg(copy, char*)) {
    n++;
  }
  va_end(copy);
  return n;
}

// execl's argument list as an argv array in `out` (room for count_args() + 2); with `with_env`
// (execle), returns the environment after the null pointer.
char** collect_args(char** out, const char* first, va_list ap, bool with_env) {
  out[0] = const_cast<char*>(first);
  size_t i = 1;
  while ((out[i] = va_arg(ap, char*))) {
    i++;
  }
  return with_env ? va_arg(ap, char**) : nullptr;
}

}  // namespace

COZ_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  api::before_exec();
  ProgramMask mask(true);
  return real().execve(path, argv, envp);
}
COZ_EXPORT int execv(const char* path, char* const argv[]) {
  api::before_exec();
  ProgramMask mask(true);
  return real().execv(path, argv);
}
COZ_EXPORT int execvp(const char* file, char* const argv[]) {
  api::before_exec();
  ProgramMask mask(true);
  return real().execvp(file, argv);
}
COZ_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  api::before_exec();
  ProgramMask mask(true);
  return real().execvpe(file, argv, envp);
}
COZ_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  api::before_exec();
  ProgramMask mask(true);
  return real().fexecve(fd, argv, envp);
}
COZ_EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[],
                        int flags) {
  api::before_exec();
  ProgramMask mask(true);
  return real().execveat(dirfd, path, argv, envp, flags);
}
// The list forms, collected on the stack (a failed exec returns) and passed to the array forms.
#define COZ_EXEC_LIST(with_env, call)                                              \
  va_list ap;                                                                      \
  va_start(ap, arg);                                                               \
  char** argv = static_cast<char**>(alloca((count_args(ap) + 2) * sizeof(char*))); \
  [[maybe_unused]] char** envp = collect_args(argv, arg, ap, with_env);            \
  va_end(ap);                                                                      \
  api::before_exec();                                                              \
  ProgramMask mask(true);                                                          \
  return call

COZ_EXPORT int execl(const char* path, const char* arg, ...) {
  COZ_EXEC_LIST(false, real().execv(path, argv));
}
COZ_EXPORT int execlp(const char* file, const char* arg, ...) {
  COZ_EXEC_LIST(false, real().execvp(file, argv));
}
COZ_EXPORT int execle(const char* path, const char* arg, ...) {
  COZ_EXEC_LIST(true, real().execve(path, argv, envp));
}

// A child started without a mask of its own (no POSIX_SPAWN_SETSIGMASK) takes the caller's.
COZ_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                           const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  api::starting_process();
  ProgramMask mask(false);
  return real().posix_spawn(pid, path, actions, attr, argv, envp);
}
COZ_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                            const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  api::starting_process();
  ProgramMask mask(false);
  return real().posix_spawnp(pid, file, actions, attr, argv, envp);
}
COZ_EXPORT int system(const char* command) {
  api::starting_process();
  ProgramMask mask(false);
  return real().system(command);
}
COZ_EXPORT FILE* popen(const char* command, const char* type) {
  api::starting_process();
  ProgramMask mask(false);
  return real().popen(command, type);
}
