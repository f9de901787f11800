// Hooks for signals: sending one may wake a thread (kill, pthread_kill, pthread_sigqueue), waiting
// for one blocks (sigwait family, sigsuspend). The profiler's sampling signal stays unblocked and
// handled by the profiler, while the program's handler for it and its masks read back and behave
// as the program set them (sample_signal.h).
#include <algorithm>

#include "base/platform.h"
#include "interpose/hook_support.h"
#include "signals/sample_signal.h"

using coz::real;
using namespace coz::hooks;

namespace {

bool is_ours(int sig) {
  return sig == coz::platform::sample_signal();
}

// `set` without the sampling signal, in `copy`; returns what the call should use.
const sigset_t* without_ours(const sigset_t* set, sigset_t* copy) {
  if (!set || !coz::hooks_api::active() || !sigismember(set, coz::platform::sample_signal())) {
    return set;
  }
  *copy = *set;
  sigdelset(copy, coz::platform::sample_signal());
  return copy;
}

// Whether the program has a handler of its own for the sampling signal (so it may wait for it).
bool program_handles_ours() {
  struct sigaction program = {};
  coz::sample_signal::program_action(&program);
  if (program.sa_flags & SA_SIGINFO) {
    return program.sa_sigaction != nullptr;
  }
  return program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN;
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
namespace {

// Waiting for signals the program named in `set`. A wait the profiler's own handler interrupted
// (a sample) goes on, as it would have without the profiler. If `set` includes the sampling
// signal, what the program sent itself while blocking it is held by the profiler
// (sample_signal.h): take it from there, and wait for the rest in short slices so a newly held
// one is seen too.
int wait_for(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  sigset_t copy;
  const sigset_t* use = without_ours(set, &copy);
  bool named = use != set && coz::sample_signal::installed();
  if (timeout && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000)) {
    return real().sigtimedwait(use, info, timeout);  // EINVAL, from the kernel
  }
  siginfo_t local;
  siginfo_t* out = info ? info : &local;
  uint64_t limit = timeout ? coz::platform::ns_of(*timeout) : UINT64_MAX;
  uint64_t start = coz::platform::monotonic_ns();
  for (bool first = true;; first = false) {
    if (named && coz::sample_signal::take_held(out)) {
      return out->si_signo;
    }
    uint64_t waited = coz::platform::monotonic_ns() - start;
    if (!first && waited >= limit) {
      errno = EAGAIN;  // the kernel was asked at least once, as with a zero timeout
      return -1;
    }
    uint64_t left = waited >= limit ? 0 : limit - waited;
    uint64_t slice = named ? std::min<uint64_t>(left, 10000000) : left;
    timespec ts = coz::platform::timespec_of(slice);
    unsigned interruptions = coz::sample_signal::own_interruptions();
    int rc = real().sigtimedwait(use, out, slice == UINT64_MAX ? nullptr : &ts);
    if (rc > 0) {
      return rc;
    }
    bool ours_only = errno == EINTR && coz::sample_signal::own_interruptions() != interruptions;
    bool slice_over = named && errno == EAGAIN && slice < left;
    if (!ours_only && !slice_over) {
      return rc;  // the program's own handler ran (EINTR), the time is up, or an error
    }
  }
}

}  // namespace

COZ_EXPORT int sigwait(const sigset_t* set, int* sig) {
  return waiting(
      signal_key(),
      [=] {
        int rc;
        do {
          rc = wait_for(set, nullptr, nullptr);
        } while (rc < 0 && errno == EINTR);
        if (rc < 0) {
          return errno;
        }
        *sig = rc;
        return 0;
      },
      returned_zero);
}
COZ_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  return waiting(
      signal_key(), [=] { return wait_for(set, info, nullptr); }, returned_positive);
}
COZ_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  return waiting(
      signal_key(), [=] { return wait_for(set, info, timeout); }, returned_positive);
}
COZ_EXPORT int sigsuspend(const sigset_t* mask) {
  int ours = coz::platform::sample_signal();
  if (!coz::sample_signal::installed() || sigismember(mask, ours) == 1 || !program_handles_ours()) {
    // The program's mask for the wait blocks the signal, or the program has no handler for it (it
    // cannot be waiting for it): the real wait blocks it. A suspended thread takes no samples,
    // and a sample that ended the wait would have to be told from the program's own signals
    // delivered with it (a SIGCHLD and a sample ending one wait, which was then resumed: an
    // nginx master stayed suspended with every worker reaped). What is sent meanwhile stays
    // pending in the kernel and is handled, as the program's disposition says, once the mask is
    // back.
    sigset_t blocked = *mask;
    if (coz::sample_signal::installed()) {
      sigaddset(&blocked, ours);
    }
    return waiting(
        signal_key(), [=] { return real().sigsuspend(&blocked); }, always);
  }
  // The program waits for the signal: it stays deliverable, what was held is delivered now, and
  // a sample that ends the real sigsuspend (no handler of the program's ran) suspends again.
  bool blocked_before = coz::sample_signal::program_blocks();
  int rc = waiting(
      signal_key(),
      [=] {
        coz::sample_signal::set_program_blocks(false);
        int result;
        bool again;
        do {
          unsigned own = coz::sample_signal::own_interruptions();
          unsigned delivered = coz::sample_signal::program_deliveries();
          if (coz::sample_signal::any_held()) {
            coz::sample_signal::resend_held();
            errno = EINTR;
            return -1;
          }
          result = real().sigsuspend(mask);
          again = coz::sample_signal::own_interruptions() != own &&
                  coz::sample_signal::program_deliveries() == delivered;
        } while (again);
        return result;
      },
      always);
  coz::sample_signal::set_program_blocks(blocked_before);
  return rc;
}
COZ_EXPORT int sigpending(sigset_t* set) {
  int rc = real().sigpending(set);
  if (rc == 0 && coz::sample_signal::installed() && coz::sample_signal::any_held()) {
    sigaddset(set, coz::platform::sample_signal());  // held for the program, as the kernel would
  }
  return rc;
}

// --- handlers and masks ----------------------------------------------------------------------
// The sampling signal's handler stays the profiler's; the program's disposition for it is kept
// aside (sample_signal.h) and runs for the signals the program sends.
COZ_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (is_ours(sig) && coz::sample_signal::installed()) {
    coz::sample_signal::set_program_action(act, old);
    return 0;
  }
  return real().sigaction(sig, act, old);
}
namespace {

sighandler_t install_handler(int sig, sighandler_t handler, int flags) {
  struct sigaction act = {}, old = {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  act.sa_flags = flags;
  if (sigaction(sig, &act, &old) != 0) {
    return SIG_ERR;
  }
  return old.sa_handler;
}

}  // namespace

// Installed here rather than in glibc, which would call its internal sigaction, not the hook.
COZ_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  return install_handler(sig, handler, SA_RESTART);  // glibc's signal() has BSD semantics
}
COZ_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler) {
  return install_handler(sig, handler, SA_RESTART);
}
COZ_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler) {
  return install_handler(sig, handler, SA_RESETHAND | SA_NODEFER);
}
// System V's sigset(): for the sampling signal, a handler (or SIG_HOLD) through the hooks above.
COZ_EXPORT sighandler_t sigset(int sig, sighandler_t disposition) {
  if (!is_ours(sig) || !coz::sample_signal::installed()) {
    return real().sigset(sig, disposition);
  }
  bool was_held = coz::sample_signal::program_blocks();
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct sigaction old = {};
  if (disposition == SIG_HOLD) {
    sigaction(sig, nullptr, &old);
    pthread_sigmask(SIG_BLOCK, &one, nullptr);
  } else {
    struct sigaction act = {};
    act.sa_handler = disposition;
    sigemptyset(&act.sa_mask);
    sigaction(sig, &act, &old);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  }
  return was_held ? SIG_HOLD : old.sa_handler;
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
  if (blocked_before && !coz::sample_signal::program_blocks()) {
    coz::sample_signal::resend_held();  // what was pending is delivered once unblocked
  }
  return rc;
}

}  // namespace

COZ_EXPORT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  return masking(how, set, old,
                 [](int h, const sigset_t* s, sigset_t* o) { return real().sigprocmask(h, s, o); });
}
COZ_EXPORT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  return masking(how, set, old, [](int h, const sigset_t* s, sigset_t* o) {
    return real().pthread_sigmask(h, s, o);
  });
}
