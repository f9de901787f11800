// The runtime's process-wide handlers: the sampling signal's, SIGINT's and SIGTERM's, and a
// sampled thread's exit (see runtime_signals.h).
#include "runtime/runtime_signals.h"

#include <errno.h>

#include "own_fds.h"
#include "platform.h"
#include "real_functions.h"
#include "runtime/hooks_api.h"
#include "runtime/runtime.h"
#include "sample_signal.h"

namespace coz::runtime_signals {

void on_sample_signal(int sig, siginfo_t* info, void* context) {
  int saved = errno;
  Runtime* rt = Runtime::active();
  // A sampler's token: a descriptor of ours (perf, its sampler maybe closed since), or a thread's
  // sampler (either engine). A tagged timer signal is a sample whatever its token.
  int token = platform::sample_token(info);
  if (sample_signal::is_sample(
          info, token >= 0 && (own_fds::is_ours(token) || (rt && rt->is_sampler(token))))) {
    sample_signal::note_own_interruption();
    if (rt) {
      rt->handle_signal(*info, context);
    }
  } else if (sample_signal::program_blocks() && sample_signal::hold(info)) {
    sample_signal::note_own_interruption();  // pending for the program, as the kernel would keep it
  } else if (!sample_signal::forward(sig, info, context)) {
    on_exit_signal(sig);  // the program's disposition is the default: terminate
  }
  errno = saved;
}

void on_exit_signal(int sig) {
  if (Runtime* rt = Runtime::active()) {
    rt->shutdown_from_signal();
  }
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real().sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

void install_exit_handlers() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction current = {};
    if (real().sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO)) {
      continue;  // the program (or its parent) chose what happens: leave it
    }
    struct sigaction sa = {};
    sa.sa_handler = on_exit_signal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    real().sigaction(sig, &sa, nullptr);
  }
}

void on_thread_exit(void* state) {
  hooks_api::InsideRuntime inside;
  if (Runtime* rt = Runtime::active()) {
    rt->threads().on_thread_exit(*static_cast<ThreadState*>(state));
  }
}

}  // namespace coz::runtime_signals
