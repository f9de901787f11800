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
