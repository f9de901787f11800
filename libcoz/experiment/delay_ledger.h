// The delay ledger: counter-coordinated delays for virtual speedup (sections 5.2.4-5.2.5) and
// load amplification (section 6.1.2).
//
// Kept in nanoseconds of virtual speedup. One global total of the delay every thread should have
// taken in the current experiment, and a per-thread local total of the delay that thread has
// taken, been credited, or "saved" by running faster. A thread that ran faster (a sample in the
// selected line is worth delay_ns; an arrival under load amplification is worth the arrival
// speedup) adds to its own local total only; a thread ahead of the global total raises it (so
// every other thread owes the difference), a thread behind it pauses for the difference.
// Invariant, per thread and experiment:
//   pauses + own speedup + credits = global total (once the thread has caught up).
// Each experiment is an epoch: totals from an earlier experiment are forgotten, never paid at
// the new delay size. nanosleep overshoot is carried and taken off later pauses.
//
// Threading: begin()/end() run in the profiler thread. The per-thread calls take the thread's own
// LocalDelays and may run in its signal handler: they are lock-free and async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "experiment/epoch_count.h"

namespace coz {

struct LocalDelays {
  uint64_t epoch = 0;
  uint64_t ns = 0;        // delay taken, credited or saved in `epoch`
  int64_t excess_ns = 0;  // time paused beyond what was asked, still to be taken off
};

class DelayLedger {
 public:
  // Starts an experiment with `delay_ns` per selected-line sample (0 for a baseline; arrivals
  // under load amplification insert delays even then).
  void begin(uint64_t delay_ns);
  // Ends it: nothing more is owed until the next begin().
  void end();
  // Raises the global total of this experiment to `ns` if it is lower (a run across programs:
  // the total another program's samples reached, relayed by the coordinator). Every thread then
  // owes the difference, as after a local raise. Returns how much it rose. Profiler thread.
  uint64_t raise_to(uint64_t ns);

  // True from begin() to end(), for every experiment: a 0% baseline keeps the same accounts
  // (with nothing to insert) so that the hooks cost the same in a baseline as in a speedup
  // experiment. In a program that locks millions of times a second that cost is a large share of
  // its run time; paid in speedup experiments only, it made every speedup look smaller than it is
  // (docs/experiments.md: SQLite inserting rows).
  bool active() const { return active_.load(std::memory_order_acquire); }
  uint64_t delay_ns() const { return delay_ns_.load(std::memory_order_acquire); }
  uint64_t global_ns() const { return epoch_count::ns(global_.load(std::memory_order_acquire)); }
  // The global total with its epoch (epoch_count.h): it changes whenever an experiment begins or
  // the total rises, so a thread that settled at one word and sees it unchanged owes no more.
  uint64_t word() const { return global_.load(std::memory_order_acquire); }
  // What a thread owes at `word` (as owed(), for a word read before).
  static uint64_t owed_at(uint64_t word, const LocalDelays& local) {
    uint64_t total = epoch_count::ns(word);
    if (epoch_count::epoch(word) != local.epoch) {
      return total;
    }
    return total > local.ns ? total - local.ns : 0;
  }

  // This thread ran `faster_ns` faster (its selected-line samples times delay_ns, plus its
  // arrival speedups): returns the nanoseconds it must pause now (the caller pauses, then
  // reports with paused()).
  // `raised`, if given, receives how much the global total rose.
  // `carry_ns` of the debt may stay owed (see DelayProtocol::carry).
  uint64_t advance(LocalDelays& local, uint64_t faster_ns, uint64_t* raised = nullptr,
                   uint64_t carry_ns = 0);
  // The nanoseconds this thread owes now beyond `carry_ns` (for catching up before it blocks or
  // wakes another); marks them as taken, so the caller must pause for them.
  uint64_t take_owed(LocalDelays& local, uint64_t carry_ns = 0);
  // The nanoseconds this thread owes, without taking them; `epoch`, if given, receives the
  // experiment they belong to (read with them).
  uint64_t owed(const LocalDelays& local, uint64_t* epoch = nullptr) const;
  // Records that this thread ran `faster_ns` faster without pausing (raising the global total
  // when this thread is ahead); what the thread owes stays owed. Returns how much this call
  // raised the global total by.
  uint64_t absorb(LocalDelays& local, uint64_t faster_ns);
  // A thread woken by a waker whose total was `ns` is credited up to that total, and by at most
  // `max_gain` (the time it was blocked: a wait absorbs delay only as long as it lasts). It still
  // owes at least `kept_debt` afterwards: what it owed when it blocked without paying (holding a
  // lock, in cond_wait) was run up while it ran, and no wake forgives it. Coz's rule, for a
  // waker that is unknown (COZ_POST_BLOCK), is `ns` = global_ns().
  void credit_to(LocalDelays& local, uint64_t ns, uint64_t max_gain = UINT64_MAX,
                 uint64_t kept_debt = 0);
  // The current experiment's epoch.
  uint64_t epoch() const { return epoch_count::epoch(global_.load(std::memory_order_acquire)); }

  // How long to really sleep for a pause of `want_ns`, after taking off earlier overshoot.
  static uint64_t pause_for(LocalDelays& local, uint64_t want_ns);
  // Reports a sleep: `asked_ns` was requested, `slept_ns` really elapsed; the overshoot is carried.
  static void paused(LocalDelays& local, uint64_t asked_ns, uint64_t slept_ns);

 private:
  void sync_epoch(LocalDelays& local, uint64_t global) const;

  std::atomic<uint64_t> global_{0};  // epoch and total, changed together (epoch_count.h)
  std::atomic<uint64_t> delay_ns_{0};
  std::atomic<bool> active_{false};
};

}  // namespace coz
