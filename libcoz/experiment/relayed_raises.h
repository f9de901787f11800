// The recent raises of a run-wide delay total that other members of a run across programs made
// (profiler/coordinated_experiments.cpp), each with when its samples were taken, on this host's
// monotonic clock. A thread whose socket wait another member ended is credited with the raises that
// member made before it answered, even when they arrive here after the answer did (they travel
// through the coordinator, a millisecond or more behind the data): the cross-program form of a
// waker's count, read at the thread's next settle (DelayProtocol::credit_relayed).
//
// One writer (the member's profiler thread); readers in any thread, from signal handlers too:
// lock-free, address-free (it lives in the run's shared memory) and async-signal-safe. A slot
// being rewritten as it is read is skipped (its word read twice differs).
#pragma once

#include <atomic>
#include <cstdint>

#include "experiment/epoch_count.h"

namespace coz {

class RelayedRaises {
 public:
  static constexpr uint64_t kSlots = 64;

  // A raise to `ns` in experiment `epoch`, sampled at `at_ns`. Profiler thread only.
  void add(uint64_t epoch, uint64_t ns, uint64_t at_ns) {
    uint64_t i = next_.load(std::memory_order_relaxed) % kSlots;
    slots_[i].word.store(0, std::memory_order_release);
    slots_[i].at_ns.store(at_ns, std::memory_order_release);
    slots_[i].word.store(epoch_count::pack(epoch, ns), std::memory_order_release);
    next_.store(i + 1, std::memory_order_release);
  }
  // The highest total of experiment `epoch` sampled at or before `by_ns`; 0 when none.
  uint64_t total_by(uint64_t epoch, uint64_t by_ns) const {
    uint64_t best = 0;
    for (const Slot& s : slots_) {
      uint64_t word = s.word.load(std::memory_order_acquire);
      uint64_t at = s.at_ns.load(std::memory_order_acquire);
      if (word == 0 || s.word.load(std::memory_order_acquire) != word ||
          epoch_count::epoch(word) != epoch || at > by_ns) {
        continue;
      }
      best = epoch_count::ns(word) > best ? epoch_count::ns(word) : best;
    }
    return best;
  }

 private:
  struct Slot {
    std::atomic<uint64_t> at_ns{0};
    std::atomic<uint64_t> word{0};
  };
  Slot slots_[kSlots];
  std::atomic<uint64_t> next_{0};
};

}  // namespace coz
