// The small platform layer: thread ids, clocks, the sampling signal, and allocation-free output
// for signal handlers and early start-up. Everything here is async-signal-safe.
#pragma once

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace coz::platform {

inline pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t wall_clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The signal that tells a thread its sample buffer has a batch ready. A real-time signal near
// the top of the range, so the program keeps SIGPROF and the low real-time signals for itself.
inline int sample_signal() { return SIGRTMAX - 2; }

// perf_event's register number for the user stack pointer on this CPU (PERF_REG_*_SP).
#if defined(__x86_64__)
inline constexpr int kPerfRegStackPointer = 7;
#elif defined(__aarch64__)
inline constexpr int kPerfRegStackPointer = 31;
#else
#error "coz: add this CPU's perf_event stack-pointer register number"
#endif

// True when the instruction just before `addr` is a call, i.e. `addr` can be a return address.
// Reads code memory: only call it for addresses inside a mapped, executable object.
inline bool follows_call(uintptr_t addr) {
#if defined(__x86_64__)
  const unsigned char* p = reinterpret_cast<const unsigned char*>(addr);
  if (p[-5] == 0xE8) {
    return true;  // call rel32
  }
  // call r/m64: FF /2, 2 to 7 bytes long (ModRM, optional SIB and displacement, optional REX).
  for (int len = 2; len <= 7; len++) {
    const unsigned char* op = p - len;
    if (op[0] == 0xFF && ((op[1] >> 3) & 7) == 2) {
      return true;
    }
  }
  return false;
#elif defined(__aarch64__)
  uint32_t insn;
  memcpy(&insn, reinterpret_cast<const void*>(addr - 4), sizeof insn);
  return (insn & 0xFC000000u) == 0x94000000u ||  // BL
         (insn & 0xFFFFFC1Fu) == 0xD63F0000u;    // BLR
#endif
}

// Writes a message to stderr with write(2): no allocation, no locks.
inline void write_stderr(const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) {
      return;
    }
    text += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace coz::platform
