// Off-CPU time (see blocked_time.h).
#include "delays/blocked_time.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "base/fast_clock.h"
#include "base/platform.h"
#include "base/real_functions.h"

extern "C" void* __libc_stack_end;  // glibc: the stack pointer as the process started

namespace coz {
namespace {

// The kernel's clock source is the TSC: then the TSC is constant and synchronised across CPUs,
// and CLOCK_MONOTONIC is derived from it, so TSC ticks convert to its nanoseconds at one rate.
bool clock_source_is_tsc() {
  char name[32] = {};
  FILE* f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
  if (!f) {
    return false;
  }
  bool tsc = fgets(name, sizeof name, f) && strncmp(name, "tsc\n", 4) == 0;
  fclose(f);
  return tsc;
}

// The calling thread's stack, [lo, hi); both 0 when unknown. For the process's first thread,
// pthread_getattr_np reads /proc/self/maps (a tenth of a millisecond, in every process a
// program starts); the stack pointer at start-up bounds what is mapped above any of its frames.
void stack_bounds(uintptr_t* lo, uintptr_t* hi) {
  *lo = *hi = 0;
  if (getpid() == static_cast<pid_t>(syscall(SYS_gettid)) && __libc_stack_end) {
    *hi = reinterpret_cast<uintptr_t>(__libc_stack_end);
    rlimit limit;
    uintptr_t size = getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                         ? limit.rlim_cur
                         : uintptr_t{8} << 20;
    *lo = *hi > size ? *hi - size : 0;
    return;
  }
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) {
    return;
  }
  void* base = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &base, &size) == 0) {
    *lo = reinterpret_cast<uintptr_t>(base);
    *hi = *lo + size;
  }
  pthread_attr_destroy(&attr);
}

// Without a switch counter, calls shorter than this did not wait: a thread switched out and
// woken again by another takes longer (two context switches and a wake-up; 1.0 us at the least
// across cores on the two-core VM, over 4 us on one core, against 0.5 us for a read that found
// its data ready: docs/where-it-runs.md).
constexpr uint64_t kWaitGateNs = 1000;

// The calling thread's voluntary and involuntary context switches so far.
uint64_t thread_switches() {
  rusage usage;
  if (getrusage(RUSAGE_THREAD, &usage) != 0) {
    return 0;
  }
  return static_cast<uint64_t>(usage.ru_nvcsw) + static_cast<uint64_t>(usage.ru_nivcsw);
}

// Stack words searched above a hook's frame for the innermost in-scope caller (as a sample's
// copied stack: SamplerSettings::stack_bytes).
constexpr uintptr_t kStackWords = 256;

}  // namespace

int BlockedTime::start(bool on, const ThreadState& self, uint64_t period_ns,
                       std::atomic<int32_t>& found) {
  period_ns_ = period_ns;
  if (!on) {
    return mode_ = 0;
  }
  constexpr int32_t kFound = 1, kCounterWorks = 2, kTscClock = 4;
  int32_t known = found.load(std::memory_order_acquire);
  const volatile uint32_t* switches = self.sampler ? self.sampler->switch_count() : nullptr;
  if (known & kFound) {  // another process of the run tested this kernel and clock
    counter_works_ = switches && (known & kCounterWorks);
  } else if (switches) {
    // Does the kernel bump the counter at a switch? A short sleep tells (the real call: the
    // hooks do not act yet); tried three times, as a sleep may end without a switch.
    for (int i = 0; i < 3 && !counter_works_; i++) {
      uint32_t before = *switches;
      timespec tiny = {0, 1000};
      real().nanosleep(&tiny, nullptr);
      counter_works_ = *switches != before;
    }
  }
  mode_ = wait_timing::kOn;
#if defined(__x86_64__) || defined(__i386__)
  if ((known & kFound) ? (known & kTscClock) != 0 : clock_source_is_tsc()) {
    mode_ |= wait_timing::kTsc;
    fast_clock::use_tsc();  // for the hooks' deadlines too
  }
#endif
  if (!(known & kFound)) {
    found.store(
        kFound | (counter_works_ ? kCounterWorks : 0) | (mode_ & wait_timing::kTsc ? kTscClock : 0),
        std::memory_order_release);
  }
  origin_tsc_ = fast_clock::tsc();
  origin_ns_ = platform::monotonic_ns();
  // Timed in nanoseconds, the gate is set now; in TSC ticks, once their rate is known (the first
  // wait 10 ms after start-up, confirm_wait): until then every call is confirmed.
  wait_timing::g_wait_gate.store(counter_works_ || (mode_ & wait_timing::kTsc) ? 0 : kWaitGateNs);
  return mode_;
}

bool BlockedTime::confirm_wait(ThreadState& t) {
  if (t.switches) {
    return true;
  }
  if ((mode_ & wait_timing::kTsc) && !gate_calibrated_.load(std::memory_order_relaxed)) {
    uint64_t ns = platform::monotonic_ns(), tsc = fast_clock::tsc();
    if (ns > origin_ns_ + 10000000 && tsc > origin_tsc_) {
      double ticks_per_ns =
          static_cast<double>(tsc - origin_tsc_) / static_cast<double>(ns - origin_ns_);
      wait_timing::g_wait_gate.store(static_cast<uint64_t>(kWaitGateNs * ticks_per_ns));
      gate_calibrated_.store(true, std::memory_order_relaxed);
    }
  }
  uint64_t switches = thread_switches();
  bool moved = switches != t.seen_switches;
  t.seen_switches = switches;
  return moved;
}

void BlockedTime::attach(ThreadState& t, pid_t tid) {
  t.switches = counter_works_ && t.sampler ? t.sampler->switch_count() : nullptr;
  if (!t.switches && (mode_ & wait_timing::kOn)) {
    t.seen_switches = thread_switches();  // attach runs in the thread itself
  }
  stack_bounds(&t.stack_lo, &t.stack_hi);
  t.blocked.reseed(static_cast<uint64_t>(tid));
}

std::string BlockedTime::describe() const {
  if (!(mode_ & wait_timing::kOn)) {
    return "off-CPU time: not measured (--no-off-cpu)";
  }
  std::string s =
      "off-CPU time: blocking libc calls timed (read/write, sockets, poll/select/epoll, fsync, "
      "sleeps, waits for children); ";
  s += counter_works_ ? "a call waited if the kernel switched the thread out meanwhile"
                      : "a call waited if it took over 1 us and the thread's context-switch count "
                        "moved (no perf page here)";
  s += mode_ & wait_timing::kTsc ? "; timed with the TSC" : "; timed with CLOCK_MONOTONIC";
  return s;
}

uint64_t BlockedTime::waited_ns(const wait_timing::Wait& wait, uint64_t ns) const {
  if (!wait.tsc) {
    return ns > wait.start ? ns - wait.start : 0;
  }
  // TSC ticks at the rate measured since start-up (the longer the baseline, the finer).
  uint64_t tsc = fast_clock::tsc();
  if (tsc <= wait.start || tsc <= origin_tsc_ || ns <= origin_ns_) {
    return 0;
  }
  double rate = static_cast<double>(ns - origin_ns_) / static_cast<double>(tsc - origin_tsc_);
  return static_cast<uint64_t>(static_cast<double>(tsc - wait.start) * rate);
}

uint64_t BlockedTime::after_wait(ThreadState& t, const wait_timing::Wait& wait, uintptr_t caller,
                                 uintptr_t stack) {
  uint64_t now = platform::monotonic_ns();
  uint64_t waited = waited_ns(wait, now);
  uint64_t n = t.blocked.on_wait(waited, period_ns_);
  if (n == 0 || waited == 0) {
    return waited;
  }
  // Only the part of the wait inside the current experiment counts for it: a long wait (a sleep,
  // a waitpid) that began before would otherwise insert more delay than the experiment lasts.
  uint64_t inside = waited;
  if (experiment_.ledger.active()) {
    uint64_t since = now - experiment_.started_ns.load(std::memory_order_relaxed);
    inside = std::min(waited, since);
  }
  // The calling line: the call site, else the innermost in-scope caller found on the stack above
  // the hook's frame (when that frame is on the thread's own stack), as for a sample in library
  // code.
  Sample at{};
  at.ip = caller - 1;
  uintptr_t from = stack & ~uintptr_t{7};
  if (t.stack_lo <= from && from < t.stack_hi) {
    at.stack = reinterpret_cast<const uint64_t*>(from);
    at.stack_words = std::min<uintptr_t>(kStackWords, (t.stack_hi - from) / sizeof(uint64_t));
  }
  double share = static_cast<double>(inside) / static_cast<double>(waited);
  uint64_t n_inside = static_cast<uint64_t>(static_cast<double>(n) * share + 0.5);
  if (attribution_.count_blocked(at, n, n_inside) && experiment_.ledger.active()) {
    uint64_t speedup = BlockedClock::speedup_ns(waited, period_ns_, experiment_.ledger.delay_ns());
    delays_.absorb_own(t, static_cast<uint64_t>(static_cast<double>(speedup) * share), true);
  }
  return waited;
}

}  // namespace coz
