// The per-thread delay protocol (sections 5.2.4-5.2.5, 6.1.2): when a thread counts its
// selected-line samples and arrivals, when it pays what it owes, and how blocking and waking hand
// delay counts from one thread to another. The ledger (experiment/delay_ledger.h) keeps the
// totals; this class decides when each thread moves them.
//
// The rules:
// - A thread pays what it owes before it blocks (for a lock, as at any hook: below) and after it
//   releases. Holding a lock, it tells its debt apart by when it was run up. What it owed as it
//   took its outermost lock (debt carried in) waits for the release: that selected-line time ran
//   before it took the lock, and paying it inside would hold up every waiter in real time (the
//   critical-section line itself). What other threads' selected-line runs add while it holds
//   the lock is paid as it comes (at its samples) and before it releases or signals (a wait that
//   ends holding a lock, cond_wait, counts as taking it afresh): in the virtual world those runs
//   were faster, so this critical section is longer relative to them, and whoever waits on the
//   lock must wait that much longer (work beside a dominating lock; deferring it past the release
//   hid it entirely). Carried-in debt is paid holding a lock only once the debt passes
//   kMaxDeferredNs.
// - A thread about to release or signal publishes its count on the primitive (handoff_table.h);
//   a thread woken through that primitive is credited up to that count, but never forgiven what
//   it owed when it blocked while holding a lock (block debt); under load amplification a credit
//   is also capped by the time spent blocked. Where a sample stands for several periods (the
//   timer sampler's: a lump), a wake credits of a lump raised during the wait only the periods
//   perf's samples, one a period, would have raised within it or within the thread's earlier
//   waits, spread over the raiser's last periods; the rest stays owed (experiment/recent_lumps.h).
// - At a sample or a non-blocking hook a thread that runs the selected line pays only what it
//   owes beyond one selected-line sample's worth (carry). Delay is handed out a sample at a
//   time, so threads that all run the selected line are each one sample ahead in turn: paying
//   that at every hook serialised their pauses wherever they meet often (barriers thousands of
//   times a second) and hid most of a parallel speedup. The carry absorbs that turn-taking. A
//   sample's worth is what one signal hands out (ExperimentState::sample_periods: the timer
//   sampler's signals stand for several periods). A thread whose own samples have not fallen in
//   the line in this experiment takes no turns: it carries one delay (a sample's worth with
//   perf's samples). Carrying four with the timer held its pauses back by a tick, and between
//   them it ran ahead of the virtual schedule (docs/experiments.md, The carry of a thread that
//   does not run the line).
// - What it owes beyond the carry it pays in pieces (take_paced): one delay (a period's speedup)
//   at most once a period, the rate at which one thread running the selected line hands them
//   out, and what is beyond that and a sample's worth at once. The timer sampler hands out four
//   delays at a tick; paid in one pause (2 ms at 50%), they stalled whoever waited on the paying
//   thread, which the virtual speedup does not (a bounded queue's producer behind a consumer that
//   paused longer than the queue lasts: docs/experiments.md, Pauses in pieces). Between pieces the
//   thread stays quiet (below) until the next is due. Before it blocks, and in
//   catch_up_fully() (after a sleep, at exit), it pays all: a wake may credit it up to its
//   waker's count, which would forgive what it ran up before. At a meeting (a barrier) it carries
//   its carry into the wait instead, and the wake's credit never forgives it (block
//   debt): paying it all there turned every sample of a line that threads meeting each round all
//   run into a pause on the critical path (docs/experiments.md, Meetings). Before it waits for a
//   lock, where the selected line runs outside any lock, it pays as at any hook and carries the
//   rest into the lock, as into a free one, the wait keeping it as block debt: paid all first,
//   that was a pause of up to twice the carry before a wait of microseconds (docs/
//   experiments.md, Lock waits).
// - A thread that settled with no lock held is quiet until the ledger's word changes (or, owing a
//   paced remainder, until its next piece is due): its hooks
//   take the fast path (quiet_hooks.h), which only notes lock debt and publishes.
// - Each pause is measured: nanosleep's overshoot is carried (DelayLedger::excess) and learnt
//   (a moving average), so later sleeps ask for less.
//
// Threads: every call takes the calling thread's own ThreadState, from a hook or from its
// sample signal handler; the protocol keeps its ThreadDelays part (thread_delays.h) and hands the
// whole state to the environment to collect its samples. A call from a hook marks the delays busy
// (in_ledger) so a signal that arrives meanwhile only counts; a hook called from a signal handler
// inside another hook does nothing. Async-signal-safe, given an environment whose calls are.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "experiment/arrival_pacer.h"
#include "experiment/delay_ledger.h"
#include "experiment/experiment_state.h"
#include "experiment/handoff_table.h"
#include "points/progress_points.h"
#include "threads/thread_state.h"

namespace coz {

// What the protocol needs from outside, injected so that unit tests run it without perf_event,
// threads or real sleeps.
class DelayEnvironment {
 public:
  virtual ~DelayEnvironment() = default;
  virtual uint64_t now_ns() = 0;
  // Sleeps about `ns` (the protocol measures what really passed with now_ns()).
  virtual void sleep_ns(uint64_t ns) = 0;
  // Adds the thread's selected-line samples that arrived since the last call to
  // `t.pending_selected`; false while another thread (shut-down) drains them.
  virtual bool collect(ThreadState& t) = 0;
  // The global delay total rose by `ns` (requests in flight spend that much less time).
  virtual void inserted(uint64_t ns) = 0;
  // The reading of the hooks' clock (base/fast_clock.h) `ns` from now: when a thread quiet with
  // a paced remainder must take the full path again (ThreadDelays::piece_due).
  virtual uint64_t deadline_after(uint64_t ns) = 0;
};

class DelayProtocol {
 public:
  // A thread holding a lock defers pauses until its debt reaches this much.
  static constexpr uint64_t kMaxDeferredNs = 50000000;

  // `handoffs` is this process's own (its locks' addresses mean nothing to another process);
  // `experiment` may be shared by every process of the run.
  DelayProtocol(ExperimentState& experiment, HandoffTable& handoffs, const AmplifySettings& amplify,
                DelayEnvironment& env)
      : experiment_(experiment), handoffs_(handoffs), amplify_(amplify), env_(env) {}

  // The sample signal: counts the samples; pays now unless a lock is held (or a hook is busy).
  void on_signal(ThreadState& t);
  // Counts the lock; taking the outermost one notes the debt carried in.
  void lock_acquired(ThreadState& t);
  void lock_released(ThreadState& t) { t.lock_released(); }
  // Pays every owed delay now, unless a lock is held.
  void catch_up(ThreadState& t);
  // Pays every owed delay now, the last sample's worth too, unless a lock is held (before a wake
  // whose releases the runtime cannot see: a futex's).
  void catch_up_in_full(ThreadState& t) { catch_up(t, false, false); }
  // As catch_up(), and again for what others added meanwhile, until nothing is owed (after a
  // sleep, before the thread carries on; at thread exit).
  void catch_up_fully(ThreadState& t);
  // About to block: pays what is owed (or keeps it as block debt when a lock is held) and notes
  // the time.
  void before_block(ThreadState& t);
  // About to wait for a lock (a mutex or read-write lock): where the selected line runs outside
  // any lock, pays as at any hook and carries the rest into the lock as if it were free, kept
  // through the wait as block debt; elsewhere as before_block.
  void before_lock_block(ThreadState& t);
  // About to wait at a meeting (a barrier, an OpenMP region's end): pays beyond its carry and
  // keeps the rest as block debt that no credit forgives.
  void before_meeting(ThreadState& t);
  // About to release or signal `key`: publishes this thread's count on it (holding a lock, after
  // paying what was run up while holding it).
  void before_wake(ThreadState& t, const void* key) { before_wake(t, key, handoffs_); }
  // The same on `table`: the run's shared table, for a waiter in another process.
  void before_wake(ThreadState& t, const void* key, HandoffTable& table);
  // A wait of `blocked` ns that a waker in another process ended (it published under `key` in
  // the run's shared `table`): credited as after_block credits a woken thread.
  void woken_across(ThreadState& t, const HandoffTable& table, const void* key, uint64_t blocked) {
    if (experiment_.ledger.active()) {
      credit_woken(t, key, blocked, table);
    }
  }
  // A wait ended by data from another member of a run across programs (a socket): from its next
  // settle on, the thread is credited up to the highest total the other members' samples reached
  // before this moment, however late their raises arrive here, and up to this process's own total
  // now, which the sender had been raised to while it waited for this process's answers. (What
  // the thread owed before the wait is forgiven with it: see docs/across-hosts.md, limits.)
  // Unlike a wake within the process tree, it keeps no debt from before the wait: the other
  // members' raises reach this process late (relayed every 10 ms or so), so what the thread
  // "owed" as the wait began holds raises sampled during earlier waits, which their wakes
  // already cover (credit_relayed); keeping it cost the two-tier benchmark 5 points.
  void woken_by_member(ThreadDelays& t) {
    t.member_wake_ns = env_.now_ns();
    t.member_wake_word = experiment_.ledger.word();
  }
  // A wait the thread began at ledger word `word` (wait_timing::Wait) without paying first (an
  // off-CPU wait: a read, a poll, an epoll_wait): what it owed then stays owed through the
  // credit of a wake from another process of the tree (woken_across), as Coz keeps a thread's
  // position when it blocks; the wake credits only what was inserted while it waited. Until
  // wait_ended().
  void wait_began(ThreadDelays& t, uint64_t word) {
    if (word != 0 && epoch_count::epoch(word) == experiment_.ledger.epoch()) {
      t.block_debt_ns = DelayLedger::owed_at(word, t.delays);
      t.block_epoch = epoch_count::epoch(word);
    }
  }
  void wait_ended(ThreadDelays& t) {
    t.block_debt_ns = 0;
    t.wake_cap_epoch = kNoEpoch;
  }
  // Back from blocking on `key` (nullptr: the waker is unknown, credit up to the global total);
  // `woken`: another thread released it (a timeout earns nothing).
  void after_block(ThreadState& t, const void* key, bool woken);
  // The thread ran `faster_ns` faster without a sample to show it (a wait on the selected line,
  // blocked_time.h, with `on_line`; a follower's own start-up, runtime.h): raises the global
  // total as its own selected-line samples would, paying nothing. With `on_line` it counts as
  // running the line (its carry: carry()).
  void absorb_own(ThreadState& t, uint64_t faster_ns, bool on_line);
  // Registers a COZ_ARRIVAL counter of this thread's own.
  void add_arrival_counter(ThreadState& t, ArrivalCounter* counter);

  uint64_t paused_ns() const { return paused_ns_.load(std::memory_order_relaxed); }

 private:
  // Gives the thread's pending samples (and arrivals) to the ledger and pauses for what it owes
  // beyond `carry_ns`: `in_pieces`, paced (take_paced), else at once.
  void settle(ThreadDelays& t, uint64_t carry_ns, bool in_pieces);
  // Takes what a thread paying at a sample or a hook pays now of its debt beyond `carry_ns`: one
  // delay at most once a period (pauses in pieces), and at once what is beyond that and a
  // sample's worth.
  uint64_t take_paced(ThreadDelays& t, uint64_t carry_ns, uint64_t period_ns);
  // Marks the thread quiet at `word` (read before it settled) when it may take the hooks' fast
  // path (hooks/quiet_hooks.h) until the word changes.
  void note_quiet(ThreadState& t, uint64_t word);
  // Pays what `t` owes: with `keep_carry`, beyond its carry() (worked out once its samples are
  // collected), else all of it; `in_pieces` as settle().
  void catch_up(ThreadState& t, bool keep_carry, bool in_pieces);
  // Marks the thread blocked and notes the time; with `keep_debt`, what it still owes becomes
  // block debt, which a wake's credit never forgives.
  void blocking(ThreadState& t, bool keep_debt);
  // Gives the thread's own selected-line samples (and arrivals) to the ledger, paying nothing.
  void count_own(ThreadDelays& t) {
    inserted(t, experiment_.ledger.absorb(t.delays, own_speedup_ns(t)));
  }
  // Holding a lock: pays what was run up since the outermost lock was taken (see the rules).
  void pay_run_up(ThreadDelays& t) {
    pause(t, experiment_.ledger.take_owed(t.delays, lock_debt(t)));
  }
  // The debt carried into the outermost lock that is still to be paid after its release.
  uint64_t lock_debt(const ThreadDelays& t) const {
    return t.lock_epoch == experiment_.ledger.epoch() ? t.lock_debt_ns : 0;
  }
  // Credits a thread woken through `key` (see after_block) after `blocked` ns.
  void credit_woken(ThreadDelays& t, const void* key, uint64_t blocked) {
    credit_woken(t, key, blocked, handoffs_);
  }
  void credit_woken(ThreadDelays& t, const void* key, uint64_t blocked, const HandoffTable& table);
  // Notes what the thread owes now as the debt it holds its locks with (the _now form for a
  // caller already inside with_delays).
  void note_lock_debt(ThreadDelays& t);
  void note_lock_debt_now(ThreadDelays& t);
  // What one selected-line sample hands out: several delay sizes where one signal stands for
  // several sampling periods (the timer sampler's, at the scheduler's tick).
  uint64_t sample_worth() const {
    return experiment_.ledger.delay_ns() *
           std::max<uint64_t>(1, experiment_.sample_periods.load(std::memory_order_relaxed));
  }
  // What `t` may leave owed when it pays at a sample or a hook (see the rules above): a sample's
  // worth where its own samples fell in the selected line in this experiment, else one delay.
  uint64_t carry(const ThreadDelays& t) const {
    bool runs_line = t.selected_epoch == experiment_.ledger.epoch() || t.pending_selected != 0;
    return runs_line ? sample_worth() : experiment_.ledger.delay_ns();
  }
  // Notes that `t`'s samples raised the global total by `raised_ns` at `now` (a lump when that is
  // several delays: experiment/recent_lumps.h).
  void note_lump(ThreadDelays& t, uint64_t raised_ns, uint64_t now);
  // Of the lumps other threads raised during the wait that just ended (`blocked` ns long), the
  // delays that perf's samples would have raised before it began, while the thread ran
  // (experiment/recent_lumps.h): what its wake must not credit. Marks the lumps looked at.
  uint64_t early_lump_ns(ThreadDelays& t, uint64_t blocked);
  // The virtual speedup this thread earned since it last asked.
  uint64_t own_speedup_ns(ThreadDelays& t);
  void pause(ThreadDelays& t, uint64_t ns);
  // `t`'s samples raised the global total by `ns`.
  void inserted(ThreadDelays& t, uint64_t ns) {
    if (ns != 0) {
      uint64_t now = env_.now_ns();
      note_lump(t, ns, now);
      experiment_.note_raise(ns, t.locks_held > 0);
      env_.inserted(ns);
      experiment_.last_raise_ns.store(now, std::memory_order_relaxed);
    }
  }
  // The credit of woken_by_member, at each settle (raises relayed later count too).
  void credit_relayed(ThreadDelays& t) {
    uint64_t epoch = experiment_.ledger.epoch();
    if (epoch_count::epoch(t.member_wake_word) != epoch) {
      return;  // it woke before this experiment began: nothing of it to credit
    }
    uint64_t total = std::max(experiment_.relayed.total_by(epoch, t.member_wake_ns),
                              epoch_count::ns(t.member_wake_word));
    if (total != 0) {
      experiment_.ledger.credit_to(t.delays, total);
    }
  }

  ExperimentState& experiment_;
  HandoffTable& handoffs_;
  const AmplifySettings& amplify_;
  DelayEnvironment& env_;
  std::atomic<uint64_t> paused_ns_{0};
  std::atomic<int64_t> overshoot_ns_{0};  // learnt nanosleep overshoot (moving average)
};

}  // namespace coz
