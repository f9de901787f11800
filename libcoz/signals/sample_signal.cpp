// The sampling signal's choice, and the program's view of it (see sample_signal.h).
#include "signals/sample_signal.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>

#include "base/platform.h"
#include "base/real_functions.h"

namespace coz::sample_signal {
namespace {

// Two copies of the program's disposition: a reader in a signal handler copies the one `g_live`
// names; a writer fills the other and then switches.
struct sigaction g_actions[2];
std::atomic<int> g_live{0};
std::atomic<bool> g_writing{false};
std::atomic<bool> g_installed{false};

__attribute__((tls_model("initial-exec"))) thread_local bool t_program_blocks = false;
__attribute__((tls_model("initial-exec"))) thread_local unsigned t_own_interruptions = 0;
__attribute__((tls_model("initial-exec"))) thread_local unsigned t_program_deliveries = 0;

// Signals held for the program: each slot empty (0), being filled or emptied (1), or full (2).
constexpr int kHeld = 32;
struct Held {
  std::atomic<int> state{0};
  siginfo_t info;
};
Held g_held[kHeld];

bool usable(int sig, const sigset_t& blocked) {
  struct sigaction current = {};
  if (real().sigaction(sig, nullptr, &current) != 0 || sigismember(&blocked, sig)) {
    return false;
  }
  return !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
}

}  // namespace

int install(void (*handler)(int, siginfo_t*, void*)) {
  sigset_t blocked;
  real().pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
  int chosen = SIGRTMAX - 2;
  for (int sig = SIGRTMAX - 2; sig >= SIGRTMIN + 2; sig--) {
    if (usable(sig, blocked)) {
      chosen = sig;
      break;
    }
  }
  platform::set_sample_signal(chosen);
  // None was free of the inherited mask (the program blocked every signal, then exec'd): the
  // program's view keeps the one chosen blocked, as the kernel's did.
  t_program_blocks = sigismember(&blocked, chosen) == 1;
  struct sigaction sa = {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);  // nothing may interrupt (or longjmp out of) a drain
  real().sigaction(chosen, &sa, &g_actions[0]);
  pthread_atfork(nullptr, nullptr, [] {
    for (Held& h : g_held) {
      h.state.store(0, std::memory_order_relaxed);  // a child starts with nothing pending
    }
  });
  g_live.store(0, std::memory_order_release);
  sigset_t mine;
  sigemptyset(&mine);
  sigaddset(&mine, chosen);
  real().pthread_sigmask(SIG_UNBLOCK, &mine, nullptr);
  g_installed.store(true, std::memory_order_release);
  return chosen;
}

bool installed() {
  return g_installed.load(std::memory_order_acquire);
}

void program_action(struct sigaction* out) {
  *out = g_actions[g_live.load(std::memory_order_acquire)];
}

void set_program_action(const struct sigaction* act, struct sigaction* old) {
  // With the signal blocked, no handler in this thread can interrupt the writer and wait for it.
  sigset_t mine, saved;
  sigemptyset(&mine);
  sigaddset(&mine, platform::sample_signal());
  real().pthread_sigmask(SIG_BLOCK, &mine, &saved);
  while (g_writing.exchange(true, std::memory_order_acquire)) {
    sched_yield();
  }
  int live = g_live.load(std::memory_order_relaxed);
  if (old) {
    *old = g_actions[live];
  }
  if (act) {
    g_actions[1 - live] = *act;
    g_live.store(1 - live, std::memory_order_release);
  }
  g_writing.store(false, std::memory_order_release);
  real().pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void reclaim(void (*handler)(int, siginfo_t*, void*)) {
  int sig = platform::sample_signal();
  struct sigaction current = {};
  if (!installed() || real().sigaction(sig, nullptr, &current) != 0 ||
      ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handler)) {
    return;
  }
  // Installed behind the hooks' back (sigset(), a raw rt_sigaction): it is the program's.
  set_program_action(&current, nullptr);
  struct sigaction sa = {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);
  real().sigaction(sig, &sa, nullptr);
}

bool is_sample(const siginfo_t* info, bool token_is_a_sampler) {
  // Signals the program sends carry SI_USER, SI_QUEUE, SI_TKILL, its own SI_TIMER values...
  if (platform::sample_token(info) < 0) {
    return false;
  }
  if (token_is_a_sampler || info->si_code == SI_TIMER) {
    return true;  // a tagged timer signal is a sample, even one from a timer deleted since
  }
  // A descriptor signal from a sampler closed since it was queued (a thread's exit, shut-down):
  // only the program's own F_SETSIG descriptors could send one too, and then it has a handler.
  struct sigaction action;
  program_action(&action);
  return !(action.sa_flags & SA_SIGINFO) &&
         (action.sa_handler == SIG_DFL || action.sa_handler == SIG_IGN);
}

bool forward(int sig, siginfo_t* info, void* context) {
  struct sigaction action;
  program_action(&action);
  if (!(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_IGN) {
    note_own_interruption();  // discarded, as the kernel would: a hooked wait goes on
    return true;
  }
  if (!(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_DFL) {
    return false;
  }
  if (action.sa_flags & SA_RESETHAND) {
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    set_program_action(&dfl, nullptr);
  }
  // The mask the program's handler would run with: the interrupted mask, its sa_mask, and the
  // signal itself unless SA_NODEFER. The kernel restores the interrupted mask on return.
  sigset_t mask = static_cast<ucontext_t*>(context)->uc_sigmask;
  sigorset(&mask, &mask, &action.sa_mask);
  if (!(action.sa_flags & SA_NODEFER)) {
    sigaddset(&mask, sig);
  }
  real().pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  // Without SA_RESTART the program's handler ends the system call it interrupted with EINTR
  // (the profiler's own handler has SA_RESTART, so the kernel set it up to restart).
  if (!(action.sa_flags & SA_RESTART)) {
    platform::fail_restarted_syscall_with_eintr(context);
  }
  // Inside its handler the program sees the signal blocked (unless SA_NODEFER), and whatever it
  // does to its mask there ends with the handler, as the kernel restores the mask on return.
  bool blocked_before = t_program_blocks;
  t_program_blocks = sigismember(&mask, sig) == 1;
  t_program_deliveries++;
  if (action.sa_flags & SA_SIGINFO) {
    action.sa_sigaction(sig, info, context);
  } else {
    action.sa_handler(sig);
  }
  t_program_blocks = blocked_before;
  return true;
}

bool hold(const siginfo_t* info) {
  for (Held& h : g_held) {
    int empty = 0;
    if (h.state.compare_exchange_strong(empty, 1, std::memory_order_acquire)) {
      h.info = *info;
      h.state.store(2, std::memory_order_release);
      return true;
    }
  }
  return false;
}

bool take_held(siginfo_t* out) {
  for (Held& h : g_held) {
    int full = 2;
    if (h.state.compare_exchange_strong(full, 1, std::memory_order_acquire)) {
      *out = h.info;
      h.state.store(0, std::memory_order_release);
      return true;
    }
  }
  return false;
}

bool any_held() {
  for (Held& h : g_held) {
    if (h.state.load(std::memory_order_acquire) == 2) {
      return true;
    }
  }
  return false;
}

void resend_held() {
  siginfo_t info;
  while (take_held(&info)) {
    real().pthread_sigqueue(pthread_self(), info.si_signo, info.si_value);
  }
}

unsigned own_interruptions() {
  return t_own_interruptions;
}

void note_own_interruption() {
  t_own_interruptions++;
}

unsigned program_deliveries() {
  return t_program_deliveries;
}

bool program_blocks() {
  return t_program_blocks;
}

void set_program_blocks(bool blocked) {
  t_program_blocks = blocked;
}

Block::Block() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  real().pthread_sigmask(SIG_BLOCK, &set, &saved_);
}

Block::~Block() {
  real().pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

}  // namespace coz::sample_signal
