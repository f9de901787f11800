// Taking, passing on or ignoring the signals that reach `coz run` (see signal_relay.h).
#include "commands/signal_relay.h"

#include <errno.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace coz::cli {
namespace {

// What the handlers reach: the one mutable state of `coz run` outside a function.
struct RelayState {
  volatile sig_atomic_t child = -1;   // the program's pid while it runs, else -1
  volatile sig_atomic_t stop = 0;     // INT, QUIT, TERM or HUP arrived
  volatile sig_atomic_t resized = 0;  // SIGWINCH arrived
  pid_t ancestors[32] = {};           // coz's parent, its parent, ...: set before the handlers
  int ancestor_count = 0;
  bool session_leader = false;  // coz leads its session (its terminal's controlling process)
};
RelayState g_state;

enum class Kind { kNone, kStop, kPassOn, kJobControl, kIgnore, kResize };

// Async-signal-safe.
Kind kind_of(int sig) {
  switch (sig) {
    case SIGINT:
    case SIGQUIT:
    case SIGTERM:
    case SIGHUP:
      return Kind::kStop;
    case SIGUSR1:
    case SIGUSR2:
    case SIGALRM:
    case SIGPIPE:
    case SIGVTALRM:
    case SIGPROF:
    case SIGIO:
    case SIGXCPU:
    case SIGXFSZ:
    case SIGSTKFLT:
    case SIGPWR:
      return Kind::kPassOn;
    case SIGTSTP:
    case SIGTTIN:
      return Kind::kJobControl;
    case SIGTTOU:
      return Kind::kIgnore;
    case SIGWINCH:
      return Kind::kResize;
    default:
      return sig >= SIGRTMIN && sig <= SIGRTMAX ? Kind::kPassOn : Kind::kNone;
  }
}

// The parent of `pid`, from /proc (0 when unknown).
pid_t parent_of(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = fopen(path, "re");
  if (f == nullptr) {
    return 0;
  }
  char buf[512];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char* end_of_name = strrchr(buf, ')');  // "pid (name) state ppid ...": names hold ')'
  int ppid = 0;
  char state = 0;
  return end_of_name && sscanf(end_of_name + 1, " %c %d", &state, &ppid) == 2 ? ppid : 0;
}

bool is_ancestor(pid_t pid) {
  for (int i = 0; i < g_state.ancestor_count; i++) {
    if (g_state.ancestors[i] == pid) {
      return true;
    }
  }
  return false;
}

// Sent by a process (kill, sigqueue, tgkill: si_code <= 0) other than coz and the program, and
// either outside their process group or one of coz's ancestors (a script that started coz in
// the background shares its group): a request for the program, which has not seen it. A signal
// the program (or a process it started) sent to its group reaches the program without coz.
bool meant_for_program(const siginfo_t* info) {
  if (info == nullptr || info->si_code > 0) {
    return false;  // the kernel, or the terminal (which signals the whole group)
  }
  pid_t sender = info->si_pid;
  if (sender <= 0 || sender == getpid() || sender == g_state.child) {
    return false;
  }
  return is_ancestor(sender) || getpgid(sender) != getpgrp();
}

// The kernel's SIGHUP for a terminal that hung up goes to the session's leader, its controlling
// process: when that is coz (started directly by a terminal emulator, `ssh -t`, `script`), the
// program in its place would have had it, so it is passed on. Otherwise the leader (a shell) has it
// and sends it to its jobs, coz's group included.
bool hangup_of_leader(int sig, const siginfo_t* info) {
  return sig == SIGHUP && info != nullptr && info->si_code > 0 && g_state.session_leader;
}

void on_signal(int sig, siginfo_t* info, void*) {
  int saved_errno = errno;
  bool forward = meant_for_program(info);
  pid_t child = g_state.child;
  switch (kind_of(sig)) {
    case Kind::kStop:
      g_state.stop = 1;
      if ((forward || hangup_of_leader(sig, info)) && child > 0) {
        kill(child, sig);
      }
      break;
    case Kind::kPassOn:
      if (forward && child > 0) {
        kill(child, sig);
      }
      break;
    case Kind::kJobControl:
      if (forward && child > 0) {
        kill(child, sig);
      }
      if (forward || info == nullptr || info->si_code > 0) {
        raise(SIGSTOP);  // as the default action would: the shell sees the job stopped
      }
      break;
    case Kind::kResize:
      g_state.resized = 1;
      break;
    case Kind::kIgnore:
    case Kind::kNone:
      break;
  }
  errno = saved_errno;
}

}  // namespace

SignalRelay::SignalRelay(bool follow_resizes) {
  sigemptyset(&relayed_);
  sigemptyset(&mask_before_hold_);
  g_state.child = -1;
  g_state.stop = 0;
  g_state.resized = 0;
  g_state.ancestor_count = 0;
  g_state.session_leader = getsid(0) == getpid();
  for (pid_t p = getppid(); p > 1 && g_state.ancestor_count < 32; p = parent_of(p)) {
    g_state.ancestors[g_state.ancestor_count++] = p;
  }
  for (int sig = 1; sig <= SIGRTMAX; sig++) {
    Kind kind = kind_of(sig);
    if (kind == Kind::kNone || (kind == Kind::kResize && !follow_resizes)) {
      continue;
    }
    sigaddset(&relayed_, sig);
  }
  struct sigaction action = {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  action.sa_mask = relayed_;  // one handler at a time
  for (int sig = 1; sig <= SIGRTMAX; sig++) {
    if (!sigismember(&relayed_, sig)) {
      continue;
    }
    Saved saved = {sig, {}};
    if (sigaction(sig, nullptr, &saved.old) != 0 || saved.old.sa_handler == SIG_IGN) {
      sigdelset(&relayed_, sig);  // ignored when coz started (nohup): stays ignored
      continue;
    }
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    if (sigaction(sig, kind_of(sig) == Kind::kIgnore ? &ignore : &action, nullptr) == 0) {
      saved_.push_back(saved);
    }
  }
}

SignalRelay::~SignalRelay() {
  for (const Saved& s : saved_) {
    sigaction(s.sig, &s.old, nullptr);
  }
  g_state.child = -1;
}

void SignalRelay::hold() {
  sigprocmask(SIG_BLOCK, &relayed_, &mask_before_hold_);
}

void SignalRelay::started(pid_t child) {
  g_state.child = child;
  sigprocmask(SIG_SETMASK, &mask_before_hold_, nullptr);
}

void SignalRelay::in_child() const {
  for (const Saved& s : saved_) {
    sigaction(s.sig, &s.old, nullptr);
  }
  sigprocmask(SIG_SETMASK, &mask_before_hold_, nullptr);
}

void SignalRelay::finished() {
  g_state.child = -1;
}

bool SignalRelay::stop_requested() const {
  return g_state.stop != 0;
}

bool SignalRelay::take_resized() {
  if (!g_state.resized) {
    return false;
  }
  g_state.resized = 0;
  return true;
}

}  // namespace coz::cli
