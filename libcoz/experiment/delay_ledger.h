// The delay ledger: counter-coordinated delays for virtual speedup (sections 5.2.4-5.2.5).
//
// One global count of the delays every thread should have taken in the current experiment, and a
// per-thread local count of the delays that thread has taken or been credited. A sample in the
// selected line adds to the sampling thread's local count only (that thread "ran faster"); a
// thread ahead of the global count raises it (so every other thread owes one more delay), a
// thread behind it pauses for the difference. Invariant, per thread and experiment:
//   pauses + selected-line samples + credits = global count (once the thread has caught up).
// Each experiment is an epoch: counts from an earlier experiment are forgotten, never paid at the
// new delay size. nanosleep overshoot is carried and taken off later pauses.
//
// Threading: begin()/end() run in the profiler thread. The per-thread calls take the thread's own
// LocalDelays and may run in its signal handler: they are lock-free and async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace coz {

struct LocalDelays {
  uint64_t epoch = 0;
  uint64_t count = 0;       // delays taken or credited in `epoch`
  int64_t excess_ns = 0;    // time paused beyond what was asked, still to be taken off
};

class DelayLedger {
 public:
  // Starts an experiment with `delay_ns` per selected-line sample (0 for a baseline).
  void begin(uint64_t delay_ns);
  // Ends it: nothing more is owed until the next begin().
  void end();

  bool active() const { return active_.load(std::memory_order_acquire); }
  uint64_t delay_ns() const { return delay_ns_.load(std::memory_order_acquire); }
  uint64_t global_count() const { return unpack_count(global_.load(std::memory_order_acquire)); }

  // After a batch of samples in which `selected` hit the selected line: returns the nanoseconds
  // this thread must pause now (the caller pauses, then reports with paused()).
  uint64_t on_samples(LocalDelays& local, uint64_t selected);
  // The nanoseconds this thread owes now (for catching up before it blocks or wakes another);
  // marks them as taken, so the caller must pause for them.
  uint64_t take_owed(LocalDelays& local);
  // A thread woken by another is credited with every delay inserted so far (Coz's rule, used
  // where the waker is unknown: COZ_POST_BLOCK).
  void credit(LocalDelays& local);
  // Gives selected-line samples to the ledger without pausing (raising the global count when
  // this thread is ahead); what the thread owes stays owed.
  void absorb(LocalDelays& local, uint64_t selected);
  // A thread woken by a waker whose count was `count` is credited up to that count.
  void credit_to(LocalDelays& local, uint64_t count);
  // The current experiment's epoch, and the caller's count synced to it.
  uint64_t epoch() const { return unpack_epoch(global_.load(std::memory_order_acquire)); }

  // How long to really sleep for a pause of `want_ns`, after taking off earlier overshoot.
  static uint64_t pause_for(LocalDelays& local, uint64_t want_ns);
  // Reports a sleep: `asked_ns` was requested, `slept_ns` really elapsed; the overshoot is carried.
  static void paused(LocalDelays& local, uint64_t asked_ns, uint64_t slept_ns);

 private:
  static constexpr int kCountBits = 40;
  static constexpr uint64_t kCountMask = (1ull << kCountBits) - 1;
  static uint64_t pack(uint64_t epoch, uint64_t count) { return (epoch << kCountBits) | count; }
  static uint64_t unpack_epoch(uint64_t v) { return v >> kCountBits; }
  static uint64_t unpack_count(uint64_t v) { return v & kCountMask; }
  void sync_epoch(LocalDelays& local, uint64_t global) const;

  std::atomic<uint64_t> global_{0};  // epoch and count, changed together
  std::atomic<uint64_t> delay_ns_{0};
  std::atomic<bool> active_{false};
};

}  // namespace coz
