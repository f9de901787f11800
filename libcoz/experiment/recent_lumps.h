// The recent selected-line samples that stood for several sampling periods at once (lumps: the
// timer sampler's signals come at the scheduler's tick and each stands for the CPU time since the
// last), with when each raised the delay total, the time it stands for and which thread raised
// it. A lump of k periods raised at time t stands for the k delays perf's samples, one a period,
// would have raised over the raiser's last k periods: one at t, and k - 1 spread over the k - 1
// periods before t, or over the time since the raiser's previous signal when that is shorter (a
// thread that began 1 ms before its first tick). A wake credits of a lump raised during the
// wait only the periods that fall within it or within the thread's earlier waits
// (DelayProtocol::early_lump_ns; docs/experiments.md, Lumps and wakes).
//
// Writers: any thread, from a signal handler too; readers: a thread settling or back from a wait.
// Lock-free, address-free (it lives in the run's shared memory) and async-signal-safe. Each slot
// names the lump it holds: a reader takes a slot only when the name read before and after is the
// lump it wants and its word read twice agrees; one still being written ends the look there (the
// next look starts from it), one written over is skipped. Two writers in one slot at once would
// take 64 lumps between their claims.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "experiment/epoch_count.h"

namespace coz {

class RecentLumps {
 public:
  static constexpr uint64_t kSlots = 64;
  static constexpr uint64_t kMaxPeriods = (1u << 14) - 1;

  // A lump of `periods` that thread `raiser` raised in experiment `epoch` at `at_ns`
  // (CLOCK_MONOTONIC), standing for the time from `from_ns`.
  void add(uint64_t epoch, uint64_t periods, pid_t raiser, uint64_t from_ns, uint64_t at_ns) {
    uint64_t n = next_.fetch_add(1, std::memory_order_relaxed);
    Slot& s = slots_[n % kSlots];
    uint64_t what = (static_cast<uint64_t>(static_cast<uint32_t>(raiser)) << 14) |
                    (periods < kMaxPeriods ? periods : kMaxPeriods);
    s.word.store(0, std::memory_order_release);
    s.number.store(n + 1, std::memory_order_release);
    s.at_ns.store(at_ns, std::memory_order_release);
    s.from_ns.store(from_ns, std::memory_order_release);
    s.word.store(epoch_count::pack(epoch, what), std::memory_order_release);
  }

  // Lumps added in all: a reader that has looked at this many has nothing new to look at.
  uint64_t added() const { return next_.load(std::memory_order_acquire); }

  // Calls `f(from_ns, at_ns, periods, raiser)` for each lump of experiment `epoch` among those
  // added from the `from`-th (counting from 0) to the `to`-th, excluded, and returns how many it
  // has looked at: up to the first still being written (the rest wait for the next look), `to`
  // otherwise. Lumps written over since (64 lumps on) are skipped.
  template <typename F>
  uint64_t for_each(uint64_t epoch, uint64_t from, uint64_t to, F&& f) const {
    if (to > from + kSlots) {
      from = to - kSlots;
    }
    for (uint64_t n = from; n < to; n++) {
      const Slot& s = slots_[n % kSlots];
      uint64_t before = s.number.load(std::memory_order_acquire);
      uint64_t word = s.word.load(std::memory_order_acquire);
      uint64_t at = s.at_ns.load(std::memory_order_acquire);
      uint64_t from_ns = s.from_ns.load(std::memory_order_acquire);
      uint64_t after = s.word.load(std::memory_order_acquire);
      if (s.number.load(std::memory_order_acquire) != before || before > n + 1) {
        continue;  // written over
      }
      if (before < n + 1 || word == 0 || after != word) {
        return n;  // still being written
      }
      if (epoch_count::epoch(word) == (epoch & epoch_count::kEpochMask)) {
        uint64_t what = epoch_count::ns(word);
        f(from_ns, at, what & kMaxPeriods, static_cast<pid_t>(what >> 14));
      }
    }
    return to;
  }

 private:
  struct Slot {
    std::atomic<uint64_t> number{0};  // which lump (added() before it) plus one; 0: none yet
    std::atomic<uint64_t> at_ns{0};
    std::atomic<uint64_t> from_ns{0};
    std::atomic<uint64_t> word{0};
  };
  // Apart from what every signal and wait reads beside it (ExperimentState).
  alignas(64) Slot slots_[kSlots];
  alignas(64) std::atomic<uint64_t> next_{0};
};

}  // namespace coz
