// The signals `coz run` takes while it runs the program: any signal the program can survive,
// coz survives too, and a signal meant for the program reaches it exactly once.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <vector>

namespace coz::cli {

// The rules, for each signal whose default action would kill or stop coz:
// - From the program's process group (a `kill(0, sig)` by the program, Ctrl-C or Ctrl-Z from the
//   terminal): the program has it already; coz does not pass it on.
// - Sent by another process to coz alone (`kill COZPID`, from outside the group or from one of
//   coz's ancestors, such as the script that started it with `&`): passed on, once.
// - INT, QUIT, TERM, HUP also ask for a stop: no further runs of a sweep.
// - TSTP and TTIN stop coz as they would by default, unless the program sent them.
// - TTOU is ignored: coz's own writes to the terminal never stop it (nor the program with it).
// A signal coz finds ignored when it starts stays ignored (nohup). The handlers are installed
// by the constructor and the dispositions coz found restored by the destructor; only one
// SignalRelay may exist at a time.
class SignalRelay {
 public:
  explicit SignalRelay(bool follow_resizes);
  ~SignalRelay();
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;

  // Around fork(): the relayed signals are held back until the child is known (parent) or the
  // dispositions are back to what coz found (child), so none falls in between.
  void hold();
  void started(pid_t child);  // in the parent, after fork (-1 if it failed)
  void in_child() const;      // in the child, before exec: async-signal-safe
  void finished();            // the program has exited

  bool stop_requested() const;
  // True once for each SIGWINCH since the last call (with follow_resizes).
  bool take_resized();

 private:
  struct Saved {
    int sig;
    struct sigaction old;
  };
  std::vector<Saved> saved_;
  sigset_t relayed_;
  sigset_t mask_before_hold_;
};

}  // namespace coz::cli
