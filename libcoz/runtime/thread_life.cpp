// The thread life cycle: attaching threads (those that existed before the runtime, and each new
// one as it starts), counting them, and detaching them at exit; and the calling thread's side of
// the delay protocol for the hooks (hooks_api.cpp).
// Threads: each call acts for the calling thread, except attach_existing_threads (start-up).
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_fds.h"
#include "platform.h"
#include "real_functions.h"
#include "runtime/hooks_api.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"
#include "runtime/sample_signal.h"
#include "sample/breakpoint_counter.h"

namespace coz {

using namespace internal;

void Runtime::attach_existing_threads() {
  // Threads started before the constructor ran (by other libraries' constructors).
  DIR* dir = opendir("/proc/self/task");
  if (!dir) {
    return;
  }
  pid_t self = platform::current_tid();
  while (dirent* entry = readdir(dir)) {
    pid_t tid = static_cast<pid_t>(atoi(entry->d_name));
    if (tid <= 0 || tid == self) {
      continue;
    }
    std::string error;
    ThreadState* state = threads_.attach(tid, backend_.get(), &error, /*scan=*/true);
    if (!state) {
      note_unsampled_thread(error);
    } else if (!open_breakpoints(state, tid, &error)) {
      report("warning: --progress: " + error, true);
    }
    // Not counted in program_threads_: they are never detached (their exit runs no hook).
  }
  closedir(dir);
}

LocalDelays Runtime::current_delays() const {
  return t_state ? t_state->delays : LocalDelays();
}

void Runtime::on_thread_start(const LocalDelays& inherited) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);  // the program may have blocked everything
  std::string error;
  ThreadState* state = threads_.attach(platform::current_tid(), backend_.get(), &error);
  if (!state) {
    note_unsampled_thread(error);
    thread_gone();  // it runs on, unsampled and uncounted
    return;
  }
  state->delays = inherited;
  if (!open_breakpoints(state, platform::current_tid(), &error)) {
    report("warning: --progress misses a thread: " + error, true);
  }
  t_state = state;
  pthread_setspecific(thread_key_, state);
}

void Runtime::thread_created() {
  program_threads_.fetch_add(1);
}

void Runtime::thread_gone() {
  if (program_threads_.fetch_sub(1) == 1) {
    shutdown();  // the last program thread (main left with pthread_exit): nothing runs anymore
  }
}

void Runtime::note_unsampled_thread(const std::string& error) {
  if (unsampled_threads_.fetch_add(1) == 0) {
    std::lock_guard<std::mutex> lock(unsampled_mutex_);
    unsampled_reason_ = error;
  }
  report("cannot sample a thread: " + error, false);
}

namespace {

// Takes back the sample signals still queued to the calling thread for its sampler on `fd`,
// which detach has just closed. A sample taken between blocking the signal and disabling the
// sampler leaves one queued; delivered once the mask is restored, its descriptor would name no
// sampler any more, so it would pass for the program's own signal (killing a program that has
// no handler for it: measured, 1 run in about 10 of 20,000 short-lived threads). Signals of that
// number that are not this sampler's are queued again, in order, as they were. Raw syscalls:
// the program's sigtimedwait and sigqueue hooks must not see these.
void discard_stale_samples(int fd) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  timespec zero = {0, 0};
  siginfo_t kept[8];
  size_t n = 0;
  siginfo_t info;
  while (n < 8 && syscall(SYS_rt_sigtimedwait, &set, &info, &zero, _NSIG / 8) > 0) {
    if (!(info.si_code >= POLL_IN && info.si_code <= POLL_HUP && info.si_fd == fd)) {
      kept[n++] = info;
    }
  }
  for (size_t i = 0; i < n; i++) {
    syscall(SYS_rt_tgsigqueueinfo, getpid(), platform::current_tid(), kept[i].si_signo, &kept[i]);
  }
}

}  // namespace

void Runtime::on_thread_exit(ThreadState* state) {
  SampleSignalBlock block;
  // Samples still in the ring: their selected-line samples still count. Exiting wakes the
  // joiner, so the thread first pays what it owes (a short thread in a fork-join round would
  // otherwise skip delays it never met at a hook or a sample, and a joiner already credited by
  // another join would not pay them either), then hands the joiner its final total.
  state->sampler->disable();
  SampleContext context{this, 0};
  state->samples += state->sampler->drain(count_sample, &context);
  state->pending_selected += context.selected;
  catch_up_fully();
  before_wake(thread_handoff_key(pthread_self()));
  close_breakpoints(state);
  t_state = nullptr;
  int fd = state->sampler->signal_fd();
  threads_.detach(state, count_sample, &context);
  discard_stale_samples(fd);
  thread_gone();
}

void Runtime::lock_acquired() {
  if (ThreadState* state = t_state) {
    delays_.lock_acquired(*state);
  }
}

void Runtime::lock_released() {
  if (ThreadState* state = t_state) {
    delays_.lock_released(*state);
  }
}

void Runtime::catch_up() {
  if (ThreadState* state = t_state) {
    delays_.catch_up(*state);
  }
}

void Runtime::catch_up_fully() {
  if (ThreadState* state = t_state) {
    delays_.catch_up_fully(*state);
  }
}

void Runtime::before_block() {
  if (ThreadState* state = t_state) {
    delays_.before_block(*state);
  }
}

void Runtime::before_wake(const void* key) {
  if (ThreadState* state = t_state) {
    delays_.before_wake(*state, key);
  }
}

void Runtime::after_block(const void* key, bool woken) {
  if (ThreadState* state = t_state) {
    delays_.after_block(*state, key, woken);
  }
}

void Runtime::post_block(bool woken) {
  if (ThreadState* state = t_state) {
    delays_.after_block(*state, nullptr, woken);
  }
}

}  // namespace coz
