// CPU-time timer sampling: a timer per thread, the sample taken in the handler (see
// timer_sampler.h).
#include "sample/timer_sampler.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/platform.h"
#include "sample/handler_samples.h"

namespace coz {
namespace {

// A coarse clock's resolution outside these is not the kernel's tick (HZ is 100 to 1000).
constexpr uint64_t kShortestTickNs = 1000000;
constexpr uint64_t kLongestTickNs = 10000000;

}  // namespace

TimerSamplerBackend::TimerSamplerBackend(SamplerSettings settings) : settings_(settings) {
  uint64_t tick = platform::kernel_tick_ns();
  if (tick >= kShortestTickNs && tick <= kLongestTickNs) {
    tick_ns_ = tick;
  }
}

class TimerThreadSampler : public ThreadSampler {
 public:
  TimerThreadSampler(TimerSamplerBackend& backend, int timer, int token)
      : backend_(backend),
        timer_(timer),
        token_(token),
        samples_(backend.settings_),
        random_(platform::monotonic_ns() * 2 + 1 +
                static_cast<uint64_t>(token) * 0x9e3779b97f4a7c15ull) {}
  ~TimerThreadSampler() override {
    disable();
    syscall(SYS_timer_delete, timer_);
  }

  // Each tick that finds the thread running (1 ns of its CPU time), or each period.
  void enable() override {
    first_.store(true, std::memory_order_relaxed);
    arm(interval_ns());
  }
  void disable() override { arm(0); }
  int signal_token() const override { return token_; }
  uint64_t lost() const override { return samples_.lost(); }
  bool has_pending() const override { return samples_.has_pending(); }

  void take(const void* context, int overrun, uintptr_t stack_lo, uintptr_t stack_hi) override {
    // The CPU time since the last signal (the kernel caps the overruns at INT_MAX: 2.1 s, with
    // a 1 ns interval), or for the first a tick at least (timer_sampler.h): more when the signal
    // waited while the thread computed in a system call, which is time seen.
    uint64_t ran = (1 + static_cast<uint64_t>(overrun > 0 ? overrun : 0)) * interval_ns();
    if (first_.exchange(false, std::memory_order_relaxed)) {
      ran = std::max(ran, backend_.tick_ns_);
    }
    random_ = random_ * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t weight = periods_of(ran, backend_.settings_.period_ns, random_ >> 17);
    backend_.tally_.add(weight);
    if (weight != 0) {
      samples_.take(context, weight, stack_lo, stack_hi);
    }
  }

  size_t drain(SampleVisitor visit, void* context) override {
    return samples_.drain(visit, context);
  }

 private:
  uint64_t interval_ns() const { return backend_.tick_ns_ != 0 ? 1 : backend_.settings_.period_ns; }
  void arm(uint64_t period_ns) {
    itimerspec spec = {};
    spec.it_interval = platform::timespec_of(period_ns);
    spec.it_value = spec.it_interval;
    syscall(SYS_timer_settime, timer_, 0, &spec, nullptr);
  }

  TimerSamplerBackend& backend_;
  const int timer_;
  const int token_;
  HandlerSamples samples_;
  std::atomic<bool> first_{true};  // no signal since enable()
  uint64_t random_;                // the handler's own
};

std::unique_ptr<ThreadSampler> TimerSamplerBackend::open_thread(pid_t tid, std::string* error) {
  int token = next_token_.fetch_add(1, std::memory_order_relaxed) & 0x3fffffff;
  int timer = platform::create_sample_timer(platform::thread_cpu_clock(tid), tid, settings_.signal,
                                            platform::kTimerSampleTag, token);
  if (timer < 0) {
    *error = std::string("cannot create a CPU-time timer for thread ") + std::to_string(tid) +
             " (" + strerror(errno) + ")" +
             (errno == EAGAIN ? "; raise the pending-signal limit with ulimit -i" : "");
    return nullptr;
  }
  return std::make_unique<TimerThreadSampler>(*this, timer, token);
}

bool TimerSamplerBackend::reads_signal(const siginfo_t& info, SignalSample* out) const {
  // Its own tag: the clock engine's timers send SI_TIMER too.
  int token = platform::sample_token(&info);
  if (info.si_code != SI_TIMER || token < 0 ||
      !platform::has_sample_tag(info, platform::kTimerSampleTag)) {
    return false;
  }
  out->token = token;
  out->overrun = info.si_overrun;
  return true;
}

}  // namespace coz
