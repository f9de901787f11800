// One thread's side of the delay protocol (delay_protocol.h): its delay count, the samples and
// debts it has not settled yet, and its load-amplification pacing.
// Touched only by the thread itself, from its hooks and its sample signal handler.
#pragma once

#include <atomic>
#include <cstdint>

#include "experiment/arrival_pacer.h"
#include "experiment/delay_ledger.h"
#include "points/progress_points.h"
#include "sample/sampler.h"
#include "threads/recent_waits.h"

namespace coz {

// ThreadDelays::quiet_word when the thread is not quiet (no ledger word takes this value).
inline constexpr uint64_t kNotQuiet = ~0ull;
// An epoch no experiment has.
inline constexpr uint64_t kNoEpoch = ~0ull;

struct ThreadDelays {
  LocalDelays delays;
  // The ledger word (DelayLedger::word()) at which the thread last settled with no lock held,
  // owing at most its carry (or a paced remainder until piece_due); kNotQuiet if it has
  // not since. While the word stays the same the hooks' fast path (quiet_hooks.h) may skip the
  // protocol.
  uint64_t quiet_word = kNotQuiet;
  uint64_t pending_selected = 0;  // selected-line samples not yet given to the ledger
  // The experiment (ledger epoch) in which this thread's own samples last fell in the selected
  // line: such a thread carries a sample's worth (DelayProtocol::carry), any other one delay.
  uint64_t selected_epoch = kNoEpoch;
  // Paced pauses (DelayProtocol::take_paced): the earliest time (CLOCK_MONOTONIC) it pays its next
  // piece, and, while it is quiet owing more than the carry, that time on the hooks' clock
  // (base/fast_clock.h), from which on the fast path gives way to the full one; else 0.
  uint64_t next_piece_ns = 0;
  uint64_t piece_due = 0;
  uint32_t piece_hooks = 1;  // hooks until the fast path reads the clock for it (quiet_hooks.h)
  volatile bool in_ledger = false;  // a hook is updating `delays`: the signal handler defers
  int locks_held = 0;               // mutexes and rwlocks held: pauses wait for the last release
  uint64_t paused_ns = 0;           // time this thread spent paused for delays, in all
  uint64_t blocked_ns = 0;          // time an arrival thread spent blocked in interposed calls
  uint64_t block_start_ns = 0;      // when the thread last began to block, or 0
  // Lumps (experiment/recent_lumps.h): when this thread was lately blocked in waits a wake
  // credits, how many lumps it has looked at, and its id on the lumps it raises.
  RecentWaits waits;
  uint64_t lumps_seen = 0;
  pid_t raiser_id = 0;
  // The cap on the credits of the wait that just ended (DelayProtocol::credit_woken), worked out
  // at its first credit, and the experiment it belongs to (kNoEpoch: none yet).
  uint64_t wake_cap_ns = 0;
  uint64_t wake_cap_epoch = kNoEpoch;
  // When its last sample signal came (or it began: CLOCK_MONOTONIC), and the one before: the
  // start of the time a lump it raises stands for.
  uint64_t last_signal_ns = 0;
  uint64_t window_from_ns = 0;
  uint64_t block_debt_ns = 0;  // still owed as it blocked (holding a lock; at a meeting; for a
                               // lock), less what a signal paid of it since
  uint64_t block_epoch = 0;    // the experiment that debt belongs to
  // In a wait a wake credits (before_block to after_block: locks, condition variables, joins,
  // barriers, semaphores, COZ_PRE_BLOCK): read by the profiler thread as an experiment ends
  // (threads/progress_threads.h), which counts such a thread as credited.
  std::atomic<bool> blocked_now{false};
  // When the pause the thread is in ends (CLOCK_MONOTONIC), or 0: its local total already holds
  // the whole pause, and an experiment that ends before it is over counts only what it had paused
  // (progress_threads.h).
  std::atomic<uint64_t> pause_end_ns{0};
  // In a blocking call timed for off-CPU profiling (wait_timing.h: a read, a poll, a sleep); kept
  // only for an engine that signals from another thread (ThreadSampler::in_flight).
  std::atomic<bool> in_timed_call{false};
  // Waits begun (blocked_now or in_timed_call set), counted only for that engine.
  std::atomic<uint32_t> waits_begun{0};
  // The sampler, when it signals from another thread (ThreadSampler::in_flight() not nullptr), and
  // its in-flight flag; set at attach, cleared at detach.
  ThreadSampler* signal_sampler = nullptr;
  const std::atomic<bool>* signal_in_flight = nullptr;
  uint64_t lock_debt_ns = 0;  // owed as it took its outermost lock (paid after the release)
  uint64_t lock_epoch = 0;    // the experiment that debt belongs to
  // When data from another member of a run across programs last ended a socket wait of this
  // thread (CLOCK_MONOTONIC), or 0, and this process's global total then, with its epoch
  // (DelayLedger::word): what DelayProtocol::woken_by_member credits.
  uint64_t member_wake_ns = 0;
  uint64_t member_wake_word = 0;

  // Load amplification: this thread's arrival counters (kept when the state is recycled, so a new
  // thread reuses them by name) and how it turns arrivals into speedup.
  ArrivalCounter* arrivals = nullptr;
  ArrivalPacer pacer;
  uint64_t arrivals_epoch = ~0ull;  // the experiment this thread last counted arrivals in

  // As the thread begins to wait or pause (blocked_now, in_timed_call or pause_end_ns just set):
  // for the engine that signals from another thread, a signal decided before it saw that lands
  // now or is called off (ThreadSampler::before_wait), so that it neither cuts a wait short
  // (EINTR) nor lands where the thread's time did not go. Dekker with ClockThreadSampler::look:
  // each side marks its own, a fence, then reads the other's.
  // `wait`: a wait (counted in waits_begun), not a pause or an exec, where the signal may be
  // blocked and is not waited for.
  void before_stopping(bool wait) {
    if (!signal_in_flight) {
      return;
    }
    if (wait) {
      waits_begun.store(waits_begun.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (signal_in_flight->load(std::memory_order_acquire)) {
      signal_sampler->before_wait(wait);
    }
  }
  // About to block in a wait a wake credits: shown blocked (blocked_now), then before_stopping.
  void show_blocked() {
    blocked_now.store(true, std::memory_order_release);
    before_stopping(true);
  }
  // In a forked child: the parent's sampler and its timers stayed behind.
  void forget_sampler() {
    signal_in_flight = nullptr;
    signal_sampler = nullptr;
  }

  // One lock fewer held (an unmatched release is ignored).
  void lock_released() {
    if (locks_held > 0) {
      locks_held--;
    }
  }
};

}  // namespace coz
