// Samples taken in the sampled thread's own signal handler, for the engines without a kernel
// ring (timer_sampler.h, clock_sampler.h): the interrupted instruction pointer, the callers
// found by following frame pointers, and a copy of the words above the stack pointer, all read
// only inside the thread's own stack, kept in a few slots until the drain.
//
// Threading: take() only in the sampled thread's handler; drain() by one thread at a time (the
// sampled thread, or the exiting one at shut-down). A handler can interrupt a hook's drain of the
// same thread, so the slots are a single-producer, single-consumer ring. Both async-signal-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sample/sampler.h"

namespace coz {

// An engine's signals and the periods they stood for, added to by every thread's handler: its
// resolution (mean thread CPU time per signal) and how the summary names it ("timer, 4 ms
// resolution"; before the first signal, the period). Async-signal-safe add().
class SignalTally {
 public:
  void add(uint32_t weight) {
    signals_.fetch_add(1, std::memory_order_relaxed);
    periods_.fetch_add(weight, std::memory_order_relaxed);
  }
  // 0 before the first signal.
  uint64_t resolution_ns(uint64_t period_ns) const;
  std::string describe(const char* name, uint64_t period_ns) const;

 private:
  std::atomic<uint64_t> signals_{0};
  std::atomic<uint64_t> periods_{0};
};

class HandlerSamples {
 public:
  static constexpr uint32_t kSlots = 4;
  static constexpr size_t kMaxDepth = 32;        // SamplerSettings::max_stack's default
  static constexpr size_t kMaxStackWords = 256;  // SamplerSettings::stack_bytes's default, 2 KiB

  explicit HandlerSamples(const SamplerSettings& settings);

  // Records the interrupted state (`context`, a ucontext_t) as one sample standing for `weight`
  // periods; false (and counted lost) when every slot is full.
  bool take(const void* context, uint32_t weight, uintptr_t stack_lo, uintptr_t stack_hi);
  // ThreadSampler::drain.
  size_t drain(SampleVisitor visit, void* context);
  bool has_pending() const {
    return head_.load(std::memory_order_acquire) != tail_.load(std::memory_order_relaxed);
  }
  uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    uintptr_t ip;
    uint32_t weight;
    size_t depth;
    size_t words;
    uint64_t chain[kMaxDepth];
    uint64_t stack[kMaxStackWords];
  };

  const size_t max_depth_;
  const size_t max_words_;
  std::atomic<uint32_t> head_{0};
  std::atomic<uint32_t> tail_{0};
  std::atomic<uint64_t> lost_{0};
  Slot slots_[kSlots];
};

}  // namespace coz
