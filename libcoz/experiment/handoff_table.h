// Delay totals (nanoseconds, as in the delay ledger) handed from a waking thread to the threads it
// wakes, keyed by the primitive (mutex, condition variable, semaphore, barrier, exiting thread).
//
// Coz makes a waker pay every owed delay before it releases a lock or signals, and credits the
// woken thread with the global count. Paying while holding the lock stalls every thread waiting
// for it, the virtually sped-up one included, in real time the experiment never subtracts. Here a
// waker instead publishes its own count on the primitive and pays after releasing; a thread that
// was blocked on that primitive is credited up to the published count only, and pays the rest
// itself. No thread skips a delay its waker had not taken.
//
// Lock-free and async-signal-safe. Keys hash into a fixed table; two primitives sharing a slot
// merge their counts (the higher wins), which can only over-credit within one experiment. Inline:
// every release and signal publishes, on the hooks' fast path too (hooks/quiet_hooks.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/zeroed.h"
#include "experiment/epoch_count.h"

namespace coz {

class HandoffTable {
 public:
  HandoffTable() {
    for (std::atomic<uint64_t>& s : slots_) {
      s.store(0, std::memory_order_relaxed);
    }
  }
  // In memory that holds zeros already (base/zeroed.h): writes nothing.
  explicit HandoffTable(AlreadyZero) {}

  // Records that a thread whose total is `count` in experiment `epoch` (the ledger's) released
  // `key`.
  // A read, and a write only when the slot holds less (or an older experiment's count).
  void publish(const void* key, uint64_t epoch, uint64_t count) {
    std::atomic<uint64_t>& s = slots_[slot(key)];
    uint64_t value = epoch_count::pack(epoch, count);
    uint64_t old = s.load(std::memory_order_relaxed);
    while (epoch_count::epoch(old) != epoch || epoch_count::ns(old) < count) {
      if (s.compare_exchange_weak(old, value, std::memory_order_acq_rel)) {
        return;
      }
    }
  }
  // The highest count published on `key` in `epoch`, or 0.
  uint64_t read(const void* key, uint64_t epoch) const {
    uint64_t v = slots_[slot(key)].load(std::memory_order_acquire);
    return epoch_count::epoch(v) == epoch ? epoch_count::ns(v) : 0;
  }

 private:
  static constexpr size_t kSlots = 16384;
  static size_t slot(const void* key) {
    uint64_t k = reinterpret_cast<uintptr_t>(key);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return static_cast<size_t>(k % kSlots);
  }

  std::atomic<uint64_t> slots_[kSlots];  // epoch and count, packed (epoch_count.h)
};

}  // namespace coz
