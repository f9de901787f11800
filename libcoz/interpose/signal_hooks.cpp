// Hooks for signals: sending one may wake a thread (kill, pthread_kill, pthread_sigqueue), waiting
// for one blocks (sigwait family, sigsuspend). The profiler's own sampling signal stays the
// profiler's: the program cannot replace its handler, block it, or wait for it, and everything
// else about the program's handlers and masks behaves as without the profiler.
#include "interpose/hook_support.h"
#include "platform.h"

using coz::real;
using namespace coz::hooks;

namespace {

bool is_ours(int sig) { return sig == coz::platform::sample_signal(); }

// `set` without the sampling signal, in `copy`; returns what the call should use.
const sigset_t* without_ours(const sigset_t* set, sigset_t* copy) {
  if (!set || !coz::Runtime::active() || !sigismember(set, coz::platform::sample_signal())) {
    return set;
  }
  *copy = *set;
  sigdelset(copy, coz::platform::sample_signal());
  return copy;
}

}  // namespace

// --- sending ---------------------------------------------------------------------------------
COZ_EXPORT int kill(pid_t pid, int sig) {
  return releasing(signal_key(), [=] { return real().kill(pid, sig); });
}
COZ_EXPORT int pthread_kill(pthread_t t, int sig) {
  return releasing(signal_key(), [=] { return real().pthread_kill(t, sig); });
}
COZ_EXPORT int pthread_sigqueue(pthread_t t, int sig, const union sigval value) {
  return releasing(signal_key(), [=] { return real().pthread_sigqueue(t, sig, value); });
}

// --- waiting ---------------------------------------------------------------------------------
COZ_EXPORT int sigwait(const sigset_t* set, int* sig) {
  sigset_t copy;
  const sigset_t* use = without_ours(set, &copy);
  return waiting(signal_key(), [=] { return real().sigwait(use, sig); }, returned_zero);
}
COZ_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  sigset_t copy;
  const sigset_t* use = without_ours(set, &copy);
  return waiting(signal_key(), [=] { return real().sigwaitinfo(use, info); }, returned_positive);
}
COZ_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  sigset_t copy;
  const sigset_t* use = without_ours(set, &copy);
  return waiting(signal_key(), [=] { return real().sigtimedwait(use, info, timeout); },
                 returned_positive);
}
COZ_EXPORT int sigsuspend(const sigset_t* mask) {
  // A suspended thread runs no code and takes no samples: keep the sampling signal blocked
  // meanwhile, so a late sample signal cannot end the program's wait early.
  sigset_t copy;
  const sigset_t* use = mask;
  if (coz::Runtime::active()) {
    copy = *mask;
    sigaddset(&copy, coz::platform::sample_signal());
    use = &copy;
  }
  return waiting(signal_key(), [=] { return real().sigsuspend(use); }, always);
}

// --- handlers and masks ----------------------------------------------------------------------
COZ_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (is_ours(sig) && act && coz::Runtime::active()) {
    return old ? real().sigaction(sig, nullptr, old) : 0;  // keep the profiler's handler
  }
  return real().sigaction(sig, act, old);
}
COZ_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  if (is_ours(sig) && coz::Runtime::active()) {
    return SIG_DFL;
  }
  struct sigaction act = {}, old = {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  act.sa_flags = SA_RESTART;  // glibc's signal() has BSD semantics
  if (real().sigaction(sig, &act, &old) != 0) {
    return SIG_ERR;
  }
  return old.sa_handler;
}
COZ_EXPORT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  sigset_t copy;
  return real().sigprocmask(how, how == SIG_UNBLOCK ? set : without_ours(set, &copy), old);
}
COZ_EXPORT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  sigset_t copy;
  return real().pthread_sigmask(how, how == SIG_UNBLOCK ? set : without_ours(set, &copy), old);
}
