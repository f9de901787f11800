// The sampling-thread engine (see clock_sampler.h).
#include "sample/clock_sampler.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/platform.h"
#include "sample/handler_samples.h"

namespace coz {
namespace {

constexpr int kMostQuiet = 6;           // a still thread is read every 2^6 wake-ups at least
constexpr uint64_t kLongestSleep = 16;  // periods, while no thread's clock moves
// A thread that began no wait since the last pass is signalled through its timer this long after
// the pass began, plus kSettlePerThreadNs for each thread the pass reads: the pass is over by
// then, and the thread it preempted has run again for some 30 us.
constexpr uint64_t kSettleNs = 50000;
constexpr uint64_t kSettlePerThreadNs = 1000;

// Sets `timer` for `at_ns` (CLOCK_MONOTONIC), or disarms it (0); false if the call failed. errno is
// the program's: kept.
bool set_timer(int timer, uint64_t at_ns, itimerspec* before) {
  itimerspec spec;
  memset(&spec, 0, sizeof spec);
  spec.it_value = platform::timespec_of(at_ns);
  int saved = errno;
  bool ok = syscall(SYS_timer_settime, timer, at_ns == 0 ? 0 : TIMER_ABSTIME, &spec, before) == 0;
  errno = saved;
  return ok;
}

uint64_t cpu_time(pid_t tid, bool* alive) {
  timespec t;
  *alive = clock_gettime(platform::thread_cpu_clock(tid), &t) == 0;
  return *alive ? platform::ns_of(t) : 0;
}

}  // namespace

class ClockThreadSampler : public ThreadSampler {
 public:
  ClockThreadSampler(ClockSamplerBackend& backend, pid_t tid, int token)
      : backend_(backend), tid_(tid), token_(token), samples_(backend.settings_) {
    bool alive = false;
    last_ = seen_ = cpu_time(tid, &alive);
    looked_ = platform::monotonic_ns();
    // A one-shot CLOCK_MONOTONIC timer that signals this thread (SI_TIMER, the tagged token).
    // Without one (the pending-signal limit reached), every signal is sent at once.
    timer_ = platform::create_sample_timer(CLOCK_MONOTONIC, tid, backend_.settings_.signal,
                                           platform::kClockSampleTag, token);
    backend_.add(this);
  }
  ~ClockThreadSampler() override {
    backend_.remove(this);
    if (timer_ >= 0) {
      syscall(SYS_timer_delete, timer_);
    }
  }

  void enable() override { enabled_.store(true, std::memory_order_release); }
  void disable() override { enabled_.store(false, std::memory_order_release); }
  int signal_token() const override { return token_; }
  uint64_t lost() const override { return samples_.lost(); }
  bool has_pending() const override { return samples_.has_pending(); }

  const std::atomic<bool>* in_flight() const override { return &in_flight_; }

  // In the thread, as it begins to wait or pause with a signal in flight. One sent at once is
  // microseconds away: waited for, at most 4,000 spins (about 0.2-0.6 ms). One set on the timer
  // is called off, its periods left for the next sample; if the timer has fired already, the
  // signal lands as the call that disarms it returns, before the wait.
  void before_wait(bool can_land) override {
    if (!armed_.load(std::memory_order_acquire)) {
      for (int spins = 0; can_land && spins < 4000 && in_flight_.load(std::memory_order_acquire) &&
                          !armed_.load(std::memory_order_acquire);
           spins++) {
        platform::cpu_relax();
      }
      if (!armed_.load(std::memory_order_acquire)) {
        return;
      }
    }
    itimerspec before;
    memset(&before, 0, sizeof before);
    if (!set_timer(timer_, 0, &before) || before.it_value.tv_sec != 0 ||
        before.it_value.tv_nsec != 0) {
      armed_.store(false, std::memory_order_relaxed);  // called off before it fired
      in_flight_.store(false, std::memory_order_release);
    }
  }

  void take(const void* context, int, uintptr_t stack_lo, uintptr_t stack_hi) override {
    armed_.store(false, std::memory_order_relaxed);
    in_flight_.store(false, std::memory_order_release);
    // Late from the end of the pass that sent it: a thread the sampling thread preempted waits
    // for the whole pass.
    uint64_t sent = sent_ns_.load(std::memory_order_acquire);
    uint64_t pass_end = backend_.pass_end_ns_.load(std::memory_order_acquire);
    uint64_t period = backend_.settings_.period_ns;
    if (pass_end > sent && pass_end - sent < period) {
      sent = pass_end;
    }
    uint64_t now = platform::monotonic_ns();
    if (now > sent && now - sent > period / 4) {
      // The thread was not running when it was signalled: preempted by another thread, or waiting
      // in a call no hook sees. Where it stands now is where it was switched out (a wake-up, a
      // wait), not where its time went; the periods wait for a signal that finds it running.
      return;
    }
    uint32_t weight = owed_.exchange(0, std::memory_order_acq_rel);
    if (weight == 0) {
      return;  // a second signal for periods one sample already took
    }
    backend_.tally_.add(weight);
    samples_.take(context, weight, stack_lo, stack_hi);
  }

  size_t drain(SampleVisitor visit, void* context) override {
    return samples_.drain(visit, context);
  }

  // Before enable(), whose release orders it for look().
  void watch(const ThreadWaits& waits) override { waits_ = waits; }

  // From the sampling thread, with the backend's list locked: reads the thread's clock (unless its
  // last signal is still in flight, or it has been still and this is not its turn) and signals it
  // when it ran half a period or more and is not waiting in a call the hooks see or pausing
  // (ThreadWaits): through its timer at `settled` if it began no wait since the last look, else
  // at once (see clock_sampler.h). A thread that ran and
  // has since blocked is left for a tick that finds it running: signalled while it waits, it
  // would take its sample where it waits instead of where its time went (a semaphore pool's
  // waits and posts took a fifth of its samples, against 0.2% with perf_event), and a call that a
  // signal cuts short (epoll_wait, poll) would fail with EINTR. Sets `moved` when its clock moved.
  void look(uint64_t tick, uint64_t now, uint64_t period, uint64_t settled, bool* moved) {
    if (!enabled_.load(std::memory_order_acquire) ||
        (tick & ((uint64_t{1} << std::min(quiet_, kMostQuiet)) - 1)) != 0) {
      return;
    }
    if (in_flight_.load(std::memory_order_acquire)) {
      if (now < sent_ns_.load(std::memory_order_relaxed) + period) {
        return;  // its timer has yet to fire, or the thread to run since it did
      }
      // A period late: the thread has stayed in the kernel since (a call no hook sees, or one it
      // computes in), or the signal is lost. Given up; if it comes after all, it takes what is
      // owed then. The next signal is sent at once, never set on the timer: a late take() of this
      // one would clear the marks of a timer set since, which then could fire in a wait.
      armed_.store(false, std::memory_order_relaxed);
      in_flight_.store(false, std::memory_order_release);
      gave_up_ = true;
    }
    bool alive = false;
    uint64_t cpu = cpu_time(tid_, &alive);
    if (!alive) {
      return;  // exited; its sampler goes with its state
    }
    uint64_t ran = cpu - seen_;
    uint64_t wall = now - looked_;
    quiet_ = ran == 0 ? quiet_ + 1 : 0;
    seen_ = cpu;
    looked_ = now;
    uint32_t begun = waits_.begun ? waits_.begun->load(std::memory_order_relaxed) : 0;
    bool waited = begun != begun_seen_;  // began a wait since the last look
    begun_seen_ = begun;
    *moved |= quiet_ == 0;
    if (cpu < last_ + period / 2) {
      return;
    }
    // Dekker with ThreadDelays::before_stopping(): either this sees the thread's wait or pause
    // begun, or the thread sees the signal in flight and lets it land, or calls it off, first. A
    // thread shown waiting that ran all along since the last look (7/8 of the time or more)
    // computes inside the call (a large write, a read from the page cache), or its flag outlived
    // the call (a handler that jumped out of it): its time is the call's, sampled there. One that
    // ran and then waited is left, its periods with it, for a tick that finds it running.
    in_flight_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (ran * 8 < wall * 7 && waits_.now()) {
      in_flight_.store(false, std::memory_order_relaxed);
      return;
    }
    // Whole periods, rounded; the remainder stays for the next sample.
    uint64_t periods = std::max<uint64_t>(1, (cpu - last_ + period / 2) / period);
    last_ += periods * period;
    owed_.fetch_add(static_cast<uint32_t>(std::min<uint64_t>(periods, 1u << 20)),
                    std::memory_order_acq_rel);
    if (timer_ >= 0 && !waited && !gave_up_) {
      // Set, then marked: a thread that sees it marked and calls it off finds it set.
      sent_ns_.store(settled, std::memory_order_release);
      if (set_timer(timer_, settled, nullptr)) {
        armed_.store(true, std::memory_order_release);
        return;
      }
    }
    gave_up_ = false;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_signo = backend_.settings_.signal;
    info.si_code = SI_QUEUE;
    info.si_pid = getpid();
    info.si_uid = getuid();
    info.si_value.sival_ptr = reinterpret_cast<void*>(
        static_cast<uintptr_t>(platform::kClockSampleTag | static_cast<uint64_t>(token_)));
    sent_ns_.store(platform::monotonic_ns(), std::memory_order_release);
    syscall(SYS_rt_tgsigqueueinfo, getpid(), tid_, backend_.settings_.signal, &info);
  }

 private:
  ClockSamplerBackend& backend_;
  const pid_t tid_;
  const int token_;
  HandlerSamples samples_;
  std::atomic<bool> enabled_{false};
  std::atomic<uint32_t> owed_{0};       // periods the next sample stands for
  ThreadWaits waits_;                   // watch(), before enable()
  std::atomic<uint64_t> sent_ns_{0};    // when it was last signalled (CLOCK_MONOTONIC)
  std::atomic<bool> in_flight_{false};  // in_flight()
  std::atomic<bool> armed_{false};      // in flight, set on the timer
  int timer_ = -1;                      // the thread's one-shot timer, or -1
  // The sampling thread's own.
  uint64_t last_ = 0;        // the thread's CPU time its samples have accounted for
  uint64_t seen_ = 0;        // its CPU time at the last look
  uint64_t looked_ = 0;      // when (CLOCK_MONOTONIC)
  int quiet_ = 0;            // looks in a row that found it still
  uint32_t begun_seen_ = 0;  // its count of waits begun at the last look
  bool gave_up_ = false;     // the last signal was given up: send the next at once
};

ClockSamplerBackend::~ClockSamplerBackend() {
  if (started_) {
    stop_.store(true, std::memory_order_release);
    pthread_join(thread_, nullptr);
  }
}

std::unique_ptr<ThreadSampler> ClockSamplerBackend::open_thread(pid_t tid, std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_ && !start_thread(error)) {
      return nullptr;
    }
  }
  int token = next_token_.fetch_add(1, std::memory_order_relaxed) & 0x3fffffff;
  return std::make_unique<ClockThreadSampler>(*this, tid, token);
}

bool ClockSamplerBackend::start_thread(std::string* error) {
  // The program's signals are not the sampling thread's to take.
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  started_ns_ = platform::monotonic_ns();
  pthread_attr_t attr;
  bool sized = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 64 << 10) == 0;
  int rc = settings_.create_thread(&thread_, sized ? &attr : nullptr, sampling_main, this);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (rc != 0) {
    *error = std::string("cannot start the sampling thread (") + strerror(rc) + ")";
    return false;
  }
  started_ = true;
  // Known before the runtime looks for the program's threads (ThreadLife::attach_existing), which
  // must not take this one for the program's.
  while (tid_.load(std::memory_order_acquire) == 0) {
    sched_yield();
  }
  return true;
}

void* ClockSamplerBackend::sampling_main(void* arg) {
  auto* self = static_cast<ClockSamplerBackend*>(arg);
  self->tid_.store(platform::current_tid(), std::memory_order_release);
  const uint64_t period = self->settings_.period_ns;
  uint64_t sleep_ns = period;
  uint64_t random = platform::monotonic_ns() | 1;
  // Woken when asked, not up to 50 us later when some other event wakes its core: on a busy
  // machine those are the program's own (a thread blocking at a barrier), and the passes would
  // keep their phase.
  prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
  while (!self->stop_.load(std::memory_order_acquire)) {
    timespec pause = platform::timespec_of(sleep_ns);
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &pause, nullptr);
    bool moved = false;
    self->sample_once(&moved);
    // Drawn between half a period and one and a half: wake-ups a fixed period apart would keep
    // one phase of a program's own rhythm (a request every 2 ms: every sample at the same point
    // of its work).
    random = random * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t jittered = period / 2 + (random >> 33) % std::max<uint64_t>(1, period);
    sleep_ns = moved ? jittered : std::min(sleep_ns * 2, kLongestSleep * period);
  }
  return nullptr;
}

void ClockSamplerBackend::sample_once(bool* moved) {
  std::lock_guard<std::mutex> lock(mutex_);
  tick_++;
  uint64_t now = platform::monotonic_ns();
  uint64_t settled = now + kSettleNs + kSettlePerThreadNs * threads_.size();
  for (ClockThreadSampler* t : threads_) {
    t->look(tick_, now, settings_.period_ns, settled, moved);
  }
  pass_end_ns_.store(platform::monotonic_ns(), std::memory_order_release);
}

void ClockSamplerBackend::add(ClockThreadSampler* sampler) {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.push_back(sampler);
}

void ClockSamplerBackend::remove(ClockThreadSampler* sampler) {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.erase(std::remove(threads_.begin(), threads_.end(), sampler), threads_.end());
}

uint64_t ClockSamplerBackend::own_cpu_ns() const {
  pid_t tid = tid_.load(std::memory_order_acquire);
  bool alive = false;
  return tid == 0 ? 0 : cpu_time(tid, &alive);
}

std::string ClockSamplerBackend::describe(uint64_t period_ns) const {
  std::string text = tally_.describe(name(), period_ns);
  uint64_t cpu = own_cpu_ns();
  uint64_t wall = started_ns_ == 0 ? 0 : platform::monotonic_ns() - started_ns_;
  if (cpu != 0 && wall != 0) {
    char share[48];
    snprintf(share, sizeof share, ", its thread %.2g%% of a core",
             100.0 * static_cast<double>(cpu) / static_cast<double>(wall));
    text += share;
  }
  return text;
}

bool ClockSamplerBackend::reads_signal(const siginfo_t& info, SignalSample* out) const {
  if ((info.si_code != SI_QUEUE && info.si_code != SI_TIMER) ||
      !platform::has_sample_tag(info, platform::kClockSampleTag)) {
    return false;
  }
  out->token = platform::sample_token(&info);
  out->overrun = 0;
  return true;
}

}  // namespace coz
