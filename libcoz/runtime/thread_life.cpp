// The thread life cycle (see thread_life.h).
#include "runtime/thread_life.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/platform.h"
#include "base/real_functions.h"
#include "signals/sample_signal.h"

namespace coz {

__thread __attribute__((tls_model("initial-exec"))) ThreadState* t_thread_state = nullptr;

namespace {

// Takes back the sample signals still queued to the calling thread for its sampler (token `fd`),
// which detach has just closed. A sample taken between blocking the signal and disabling the
// sampler leaves one queued; delivered once the mask is restored, its descriptor would name no
// sampler any more, so it would pass for the program's own signal (killing a program that has
// no handler for it; docs/measured-choices.md). Signals of that number that are
// not this sampler's are queued again, in order, as they were. Raw syscalls: the program's
// sigtimedwait and sigqueue hooks must not see these.
void discard_stale_samples(int fd) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  timespec zero = {0, 0};
  siginfo_t kept[8];
  size_t n = 0;
  siginfo_t info;
  while (n < 8 && syscall(SYS_rt_sigtimedwait, &set, &info, &zero, _NSIG / 8) > 0) {
    if (platform::sample_token(&info) != fd) {
      kept[n++] = info;
    }
  }
  for (size_t i = 0; i < n; i++) {
    syscall(SYS_rt_tgsigqueueinfo, getpid(), platform::current_tid(), kept[i].si_signo, &kept[i]);
  }
}

}  // namespace

bool ThreadLife::start(SamplerBackend* backend, void (*at_exit)(void*),
                       std::function<void()> last_gone, std::string* error) {
  backend_ = backend;
  last_gone_ = std::move(last_gone);
  if (!have_key_ && pthread_key_create(&key_, at_exit) != 0) {
    *error = "no thread-specific key left (pthread_key_create)";
    return false;
  }
  have_key_ = true;
  // Sample this thread first: if perf_event is refused, nothing else will work either.
  ThreadState* self = threads_.attach(platform::current_tid(), backend_, error);
  if (!self) {
    return false;
  }
  if (!points_.open(*self, platform::current_tid(), error)) {
    *error = "--progress: " + *error;
    self->sampler->disable();
    points_.close(*self);  // an armed execute breakpoint traps on every hit
    return false;
  }
  t_thread_state = self;
  pthread_setspecific(key_, self);
  program_threads_.fetch_add(1);
  return true;
}

void ThreadLife::attach_existing() {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) {
    return;
  }
  pid_t self = platform::current_tid();
  while (dirent* entry = readdir(dir)) {
    pid_t tid = static_cast<pid_t>(atoi(entry->d_name));
    if (tid <= 0 || tid == self || tid == backend_->own_thread()) {
      continue;  // this one, and the sampling engine's own thread
    }
    std::string error;
    ThreadState* state = threads_.attach(tid, backend_, &error, /*scan=*/true);
    if (!state) {
      note_unsampled(error);
    } else if (!points_.open(*state, tid, &error)) {
      reporter_.say("warning: --progress: " + error, true);
    }
    // Not counted in program_threads_: they are never detached (their exit runs no hook).
  }
  closedir(dir);
}

void ThreadLife::on_thread_start(const LocalDelays& inherited) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);  // the program may have blocked everything
  std::string error;
  ThreadState* state = threads_.attach(platform::current_tid(), backend_, &error);
  if (!state) {
    note_unsampled(error);
    gone();  // it runs on, unsampled and uncounted
    return;
  }
  state->delays = inherited;
  state->quiet_word = kNotQuiet;  // a sample before this line may have marked it quiet
  blocked_.attach(*state, platform::current_tid());
  if (!points_.open(*state, platform::current_tid(), &error)) {
    reporter_.say("warning: --progress misses a thread: " + error, true);
  }
  t_thread_state = state;
  pthread_setspecific(key_, state);
}

void ThreadLife::on_thread_exit(ThreadState& state) {
  sample_signal::Block block;
  // Samples still in the ring: their selected-line samples still count. Exiting wakes the
  // joiner, so the thread first pays what it owes (a short thread in a fork-join round would
  // otherwise skip delays it never met at a hook or a sample, and a joiner already credited by
  // another join would not pay them either), then hands the joiner its final total.
  state.sampler->disable();
  state.pending_selected += attribution_.drain(state);
  delays_.catch_up_fully(state);
  delays_.before_wake(state, handoff_key(pthread_self()));
  progress_.departed(state);  // its visits in the open experiment are timed by what it took
  points_.close(state);
  t_thread_state = nullptr;
  int fd = state.sampler->signal_token();
  SampleAttribution::Tally tally{&attribution_};
  threads_.detach(&state, SampleAttribution::count, &tally);
  discard_stale_samples(fd);
  gone();
}

void ThreadLife::gone() {
  if (program_threads_.fetch_sub(1) == 1 && last_gone_) {
    last_gone_();  // the last program thread (main left with pthread_exit): nothing runs anymore
  }
}

void ThreadLife::note_unsampled(const std::string& error) {
  if (unsampled_.fetch_add(1) == 0) {
    std::lock_guard<std::mutex> lock(unsampled_mutex_);
    unsampled_reason_ = error;
  }
  reporter_.say("cannot sample a thread: " + error, false);
}

uint64_t ThreadLife::unsampled(std::string* reason) {
  std::lock_guard<std::mutex> lock(unsampled_mutex_);
  *reason = unsampled_reason_;
  return unsampled_.load();
}

}  // namespace coz
