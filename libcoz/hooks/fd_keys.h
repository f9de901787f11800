// The key under which a pipe's (or FIFO's) writers and readers meet across the run's processes:
// the file itself (device and inode), the same object in every process however its descriptors
// are numbered. Other descriptors (sockets, whose two ends are different files; regular files,
// which no writer wakes) have none. Cached per descriptor number and forgotten as the program
// closes or replaces the descriptor (interpose/fd_hooks.cpp); a number closed by a raw system call
// may keep a stale key, which at worst credits a wait with a count published on another pipe.
// Threads: any, lock-free, async-signal-safe (fstat is, and the cache is atomics): a program's
// signal handler that writes to a pipe reaches it through write().
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstdint>

#include "base/zeroed.h"

namespace coz {

class FdKeys {
 public:
  FdKeys() { forget_from(0); }
  // In memory that holds zeros already (base/zeroed.h): writes nothing.
  explicit FdKeys(AlreadyZero) {}

  // The key for `fd`, or nullptr when it names no pipe or FIFO.
  const void* key(int fd) {
    if (fd < 0) {
      return nullptr;
    }
    uint64_t k = fd < kCached ? keys_[fd].load(std::memory_order_relaxed) : 0;
    if (k == 0) {
      struct stat st;
      k = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) ? of(st.st_dev, st.st_ino) : kNone;
      if (fd < kCached) {
        keys_[fd].store(k, std::memory_order_relaxed);
      }
    }
    return k == kNone ? nullptr : reinterpret_cast<const void*>(k);
  }
  // The same, from the file itself (and cached anew).
  const void* fresh(int fd) {
    forget(fd);
    return key(fd);
  }
  void forget(int fd) {
    if (fd >= 0 && fd < kCached) {
      keys_[fd].store(0, std::memory_order_relaxed);
    }
  }
  void forget_from(int fd) {
    for (int i = fd < 0 ? 0 : fd; i < kCached; i++) {
      forget(i);
    }
  }
  // The key under which a process's exit meets the parent waiting for it.
  static const void* of_process(int pid) {
    return reinterpret_cast<const void*>((uint64_t{1} << 62) | static_cast<uint32_t>(pid));
  }

 private:
  static constexpr int kCached = 4096;
  static constexpr uint64_t kNone = 1;
  static uint64_t of(uint64_t dev, uint64_t ino) {
    uint64_t k = dev * 0x9e3779b97f4a7c15ull ^ ino;
    return (k << 2 >> 2) | (uint64_t{1} << 63);  // never kNone, never a process's key
  }
  std::atomic<uint64_t> keys_[kCached];
};

}  // namespace coz
