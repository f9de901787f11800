// A clock cheap enough for the hooks' fast path (hooks/quiet_hooks.h), for deadlines a millisecond
// or so away (the next piece of a paced pause, delays/delay_protocol.h): the time-stamp counter
// where the clock source is the TSC, once its rate is measured (a read costs 9.6 ns on the
// development VM against 23 ns for clock_gettime), and CLOCK_MONOTONIC's nanoseconds before that
// and elsewhere. The unit changes once, from nanoseconds to ticks: a deadline set in nanoseconds
// and compared with a later reading in ticks (far larger) comes due at once, which costs one
// settle on the full path and nothing else.
// Threads: any; async-signal-safe (relaxed atomics, the TSC, the vDSO clock).
#pragma once

#include <atomic>
#include <cstdint>

#include "base/platform.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace coz::fast_clock {

// TSC ticks per nanosecond in 16.16 fixed point once measured, else 0 (readings in nanoseconds).
inline std::atomic<uint64_t> g_ticks_per_ns{0};
// The TSC and CLOCK_MONOTONIC read together when use_tsc() was called (0: the TSC is not used).
inline std::atomic<uint64_t> g_origin_tsc{0};
inline std::atomic<uint64_t> g_origin_ns{0};

// The TSC's ticks (CLOCK_MONOTONIC's nanoseconds where there is none): also what off-CPU waits are
// timed with (hooks/wait_timing.h).
inline uint64_t tsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return platform::monotonic_ns();
#endif
}

// The clock now, in its current unit.
inline uint64_t now() {
  return g_ticks_per_ns.load(std::memory_order_relaxed) ? tsc() : platform::monotonic_ns();
}

// The reading `ns` nanoseconds from now (`now_ns`: CLOCK_MONOTONIC now). Measures the TSC's rate
// once 10 ms have passed since use_tsc().
inline uint64_t after(uint64_t ns, uint64_t now_ns) {
  uint64_t rate = g_ticks_per_ns.load(std::memory_order_relaxed);
  if (rate == 0) {
    uint64_t origin_tsc = g_origin_tsc.load(std::memory_order_acquire);  // then its pair
    uint64_t origin_ns = g_origin_ns.load(std::memory_order_relaxed);
    uint64_t ticks = tsc();
    if (origin_tsc == 0 || now_ns < origin_ns + 10000000 || ticks <= origin_tsc) {
      return now_ns + ns;
    }
    rate = static_cast<uint64_t>((static_cast<unsigned __int128>(ticks - origin_tsc) << 16) /
                                 (now_ns - origin_ns));
    g_ticks_per_ns.store(rate, std::memory_order_relaxed);
    return ticks + ((ns * rate) >> 16);
  }
  return tsc() + ((ns * rate) >> 16);
}

// The clock source is the TSC (invariant, as the kernel requires to choose it): deadlines may use
// it from 10 ms on. Called by BlockedTime::start, which finds it out when off-CPU timing is on;
// without that, the hooks' deadlines stay in nanoseconds.
inline void use_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  if (g_origin_tsc.load(std::memory_order_relaxed) == 0) {
    g_origin_ns.store(platform::monotonic_ns(), std::memory_order_relaxed);
    g_origin_tsc.store(tsc(), std::memory_order_release);  // after its pair
  }
#endif
}

}  // namespace coz::fast_clock
