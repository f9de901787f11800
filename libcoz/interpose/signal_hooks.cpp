// Hooks for signals: sending one may wake a thread (kill, pthread_kill, pthread_sigqueue), waiting
// for one blocks (sigwait family, sigsuspend). The profiler's sampling signal stays unblocked and
// handled by the profiler, while the program's handler for it and its masks read back and behave
// as the program set them (runtime/sample_signal.h).
#include "interpose/hook_support.h"
#include "platform.h"
#include "runtime/sample_signal.h"

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
// The sampling signal's handler stays the profiler's; the program's disposition for it is kept
// aside (runtime/sample_signal.h) and runs for the signals the program sends.
COZ_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (is_ours(sig) && coz::sample_signal::installed()) {
    coz::sample_signal::set_program_action(act, old);
    return 0;
  }
  return real().sigaction(sig, act, old);
}
COZ_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  struct sigaction act = {}, old = {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  act.sa_flags = SA_RESTART;  // glibc's signal() has BSD semantics
  if (sigaction(sig, &act, &old) != 0) {
    return SIG_ERR;
  }
  return old.sa_handler;
}

namespace {

// A mask change with the sampling signal left out; the mask read back shows it blocked when the
// program blocked it.
template <typename Call>
int masking(int how, const sigset_t* set, sigset_t* old, Call&& call) {
  if (!coz::sample_signal::installed()) {
    return call(how, set, old);
  }
  int ours = coz::platform::sample_signal();
  bool blocked_before = coz::sample_signal::program_blocks();
  bool named = set && sigismember(set, ours) == 1;  // before the call: `old` may alias `set`
  sigset_t copy;
  const sigset_t* use = set;
  if (named && how != SIG_UNBLOCK) {
    copy = *set;
    sigdelset(&copy, ours);
    use = &copy;
  }
  int rc = call(how, use, old);
  if (rc != 0) {
    return rc;
  }
  if (old && blocked_before) {
    sigaddset(old, ours);
  }
  if (set) {
    if (how == SIG_SETMASK) {
      coz::sample_signal::set_program_blocks(named);
    } else if (named) {
      coz::sample_signal::set_program_blocks(how == SIG_BLOCK);
    }
  }
  return rc;
}

}  // namespace

COZ_EXPORT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  return masking(how, set, old, [](int h, const sigset_t* s, sigset_t* o) {
    return real().sigprocmask(h, s, o);
  });
}
COZ_EXPORT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  return masking(how, set, old, [](int h, const sigset_t* s, sigset_t* o) {
    return real().pthread_sigmask(h, s, o);
  });
}
