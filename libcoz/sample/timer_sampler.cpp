// CPU-time timer sampling: a timer per thread, the sample taken in the handler (see
// timer_sampler.h).
#include "sample/timer_sampler.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/platform.h"

namespace coz {
namespace {

// The kernel's clock id for thread `tid`'s CPU time (the scheduler's runtime, user and system):
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) in the kernel's posix-cpu-timers. It is what
// pthread_getcpuclockid gives for the calling thread, and it names any thread of this process.
clockid_t thread_cpu_clock(pid_t tid) {
  return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 4 | 2);
}

// Samples taken in the handler wait here for the drain: a handler can interrupt a hook's drain
// of the same thread, and shut-down drains from another thread, so the slots are a
// single-producer, single-consumer ring (the drainer is one thread at a time: ThreadState's
// draining flag).
constexpr uint32_t kSlots = 4;
constexpr size_t kMaxDepth = 32;        // SamplerSettings::max_stack's default
constexpr size_t kMaxStackWords = 256;  // SamplerSettings::stack_bytes's default, 2 KiB

}  // namespace

class TimerThreadSampler : public ThreadSampler {
 public:
  TimerThreadSampler(TimerSamplerBackend& backend, int timer, int token)
      : backend_(backend),
        timer_(timer),
        token_(token),
        max_depth_(std::min<size_t>(backend.settings_.max_stack, kMaxDepth)),
        max_words_(std::min<size_t>(backend.settings_.stack_bytes / 8, kMaxStackWords)) {}
  ~TimerThreadSampler() override {
    disable();
    syscall(SYS_timer_delete, timer_);
  }

  void enable() override { arm(backend_.settings_.period_ns); }
  void disable() override { arm(0); }
  int signal_token() const override { return token_; }
  uint64_t lost() const override { return lost_.load(std::memory_order_relaxed); }
  bool has_pending() const override {
    return head_.load(std::memory_order_acquire) != tail_.load(std::memory_order_relaxed);
  }

  void take(const void* context, int overrun, uintptr_t stack_lo, uintptr_t stack_hi) override {
    uint32_t weight = 1 + static_cast<uint32_t>(overrun > 0 ? overrun : 0);
    backend_.signals_.fetch_add(1, std::memory_order_relaxed);
    backend_.periods_.fetch_add(weight, std::memory_order_relaxed);
    uint32_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) >= kSlots) {
      lost_.fetch_add(weight, std::memory_order_relaxed);
      return;
    }
    Slot& s = slots_[head % kSlots];
    platform::Registers r = platform::interrupted_registers(context);
    s.ip = r.ip;
    s.weight = weight;
    s.depth = 0;
    s.words = 0;
    if (stack_lo <= r.sp && r.sp < stack_hi) {
      // The words above the stack pointer, as perf copies them (for leaf library code without
      // frame pointers), then the frame-pointer chain: each frame's saved frame pointer and
      // return address, followed while they stay on this stack and move up it.
      uintptr_t from = r.sp & ~uintptr_t{7};
      s.words = std::min<size_t>(max_words_, (stack_hi - from) / 8);
      memcpy(s.stack, reinterpret_cast<const void*>(from), s.words * 8);
      for (uintptr_t fp = r.fp;
           s.depth < max_depth_ && (fp & 7) == 0 && fp >= from && fp + 16 <= stack_hi;) {
        const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(fp);
        if (frame[1] == 0) {
          break;
        }
        s.chain[s.depth++] = frame[1];
        if (frame[0] <= fp) {
          break;
        }
        fp = frame[0];
      }
    }
    head_.store(head + 1, std::memory_order_release);
  }

  size_t drain(SampleVisitor visit, void* context) override {
    uint32_t head = head_.load(std::memory_order_acquire);
    uint32_t tail = tail_.load(std::memory_order_relaxed);
    size_t periods = 0;
    for (; tail != head; tail++) {
      const Slot& s = slots_[tail % kSlots];
      Sample sample;
      sample.ip = s.ip;
      sample.callchain = s.chain;
      sample.depth = s.depth;
      sample.stack = s.stack;
      sample.stack_words = s.words;
      sample.weight = s.weight;
      visit(sample, context);
      periods += s.weight;
    }
    tail_.store(tail, std::memory_order_release);
    return periods;
  }

 private:
  struct Slot {
    uintptr_t ip;
    uint32_t weight;
    size_t depth;
    size_t words;
    uint64_t chain[kMaxDepth];
    uint64_t stack[kMaxStackWords];
  };

  void arm(uint64_t period_ns) {
    itimerspec spec = {};
    spec.it_interval.tv_sec = static_cast<time_t>(period_ns / 1000000000);
    spec.it_interval.tv_nsec = static_cast<long>(period_ns % 1000000000);
    spec.it_value = spec.it_interval;
    syscall(SYS_timer_settime, timer_, 0, &spec, nullptr);
  }

  TimerSamplerBackend& backend_;
  const int timer_;
  const int token_;
  const size_t max_depth_;
  const size_t max_words_;
  std::atomic<uint32_t> head_{0};
  std::atomic<uint32_t> tail_{0};
  std::atomic<uint64_t> lost_{0};
  Slot slots_[kSlots];
};

std::unique_ptr<ThreadSampler> TimerSamplerBackend::open_thread(pid_t tid, std::string* error) {
  int token = next_token_.fetch_add(1, std::memory_order_relaxed) & 0x3fffffff;
  sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = settings_.signal;
  event._sigev_un._tid = tid;
  event.sigev_value.sival_ptr =
      reinterpret_cast<void*>(static_cast<uintptr_t>(platform::kTimerSampleTag | uint64_t(token)));
  int timer = -1;
  if (syscall(SYS_timer_create, thread_cpu_clock(tid), &event, &timer) != 0) {
    *error = std::string("cannot create a CPU-time timer for thread ") + std::to_string(tid) +
             " (" + strerror(errno) + ")" +
             (errno == EAGAIN ? "; raise the pending-signal limit with ulimit -i" : "");
    return nullptr;
  }
  return std::make_unique<TimerThreadSampler>(*this, timer, token);
}

uint64_t TimerSamplerBackend::resolution_ns() const {
  uint64_t signals = signals_.load(std::memory_order_relaxed);
  uint64_t periods = periods_.load(std::memory_order_relaxed);
  return signals == 0 ? 0 : periods * settings_.period_ns / signals;
}

std::string TimerSamplerBackend::describe(uint64_t period_ns) const {
  uint64_t resolution = resolution_ns();
  if (resolution == 0) {
    resolution = period_ns;
  }
  char text[64];
  snprintf(text, sizeof text, "timer, %.3g ms resolution", static_cast<double>(resolution) / 1e6);
  return text;
}

bool TimerSamplerBackend::reads_signal(const siginfo_t& info, SignalSample* out) const {
  int token = platform::sample_token(&info);
  if (info.si_code != SI_TIMER || token < 0) {
    return false;
  }
  out->token = token;
  out->overrun = info.si_overrun;
  return true;
}

}  // namespace coz
