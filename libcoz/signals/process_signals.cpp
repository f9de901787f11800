// The profiler's process-wide signal handlers (see process_signals.h).
#include "signals/process_signals.h"

#include <errno.h>

#include <atomic>

#include "base/own_fds.h"
#include "base/platform.h"
#include "base/real_functions.h"
#include "signals/sample_signal.h"

namespace coz::process_signals {
namespace {
std::atomic<const Sink*> g_sink{nullptr};
}  // namespace

void connect(const Sink* sink) {
  g_sink.store(sink, std::memory_order_release);
}

void on_sample_signal(int sig, siginfo_t* info, void* context) {
  int saved = errno;
  const Sink* sink = g_sink.load(std::memory_order_acquire);
  // A sampler's token: a descriptor of ours (perf, its sampler maybe closed since), or a thread's
  // sampler (either engine). A tagged timer signal is a sample whatever its token.
  int token = platform::sample_token(info);
  if (sample_signal::is_sample(
          info, token >= 0 && (own_fds::is_ours(token) || (sink && sink->is_sampler(token))))) {
    sample_signal::note_own_interruption();
    if (sink) {
      sink->take_sample(*info, context);
    }
  } else if (sample_signal::program_blocks() && sample_signal::hold(info)) {
    sample_signal::note_own_interruption();  // pending for the program, as the kernel would keep it
  } else if (!sample_signal::forward(sig, info, context)) {
    on_exit_signal(sig);  // the program's disposition is the default: terminate
  }
  errno = saved;
}

void on_exit_signal(int sig) {
  if (const Sink* sink = g_sink.load(std::memory_order_acquire)) {
    sink->shut_down();
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

}  // namespace coz::process_signals
