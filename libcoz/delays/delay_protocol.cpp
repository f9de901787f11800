// The per-thread delay protocol (see delay_protocol.h).
#include "delays/delay_protocol.h"

#include "delays/ledger_trace.h"

namespace coz {
namespace {

using ledger_trace::Event;

// Runs `update` on the thread's delays with the sample handler deferring to it. Nested use (a
// hook called from the program's signal handler while this thread was inside another hook) is
// skipped: the outer update owns the thread's delays.
template <typename F>
void with_delays(ThreadDelays& t, F&& update) {
  if (t.in_ledger) {
    return;
  }
  t.in_ledger = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  update();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t.in_ledger = false;
}

}  // namespace

void DelayProtocol::on_signal(ThreadState& t) {
  uint64_t word = experiment_.ledger.word();  // before settling: a change meanwhile shows
  if (experiment_.lumpy()) {
    // The time this signal's periods stand for begins at the last one (RecentLumps).
    uint64_t now = env_.now_ns();
    t.window_from_ns = t.last_signal_ns;
    t.last_signal_ns = now;
  }
  if (!env_.collect(t)) {
    return;  // shut-down is draining this thread
  }
  if (t.in_ledger) {
    return;  // a hook is working on the delays; it picks the samples up
  }
  if (t.locks_held > 0 && experiment_.ledger.active()) {
    // Holding a lock: count the samples now and pay what was run up while holding it; the debt
    // carried in waits for the release (unless the debt grows large).
    count_own(t);
    if (experiment_.ledger.owed(t.delays) < kMaxDeferredNs) {
      pay_run_up(t);
      return;
    }
    settle(t, carry(t), false);
    note_lock_debt(t);  // what is left (its carry) is all it carries now
    return;
  }
  settle(t, carry(t), true);
  note_quiet(t, word);
}

void DelayProtocol::note_quiet(ThreadState& t, uint64_t word) {
  // Settled at `word` with no lock held: owes at most its carry until the word changes, or
  // a paced remainder until its next piece is due. Not under load amplification: arrivals earn
  // speedup at every hook, and a woken thread's credit is capped by the time it was blocked, which
  // the fast path does not measure.
  if (!experiment_.ledger.active() || t.locks_held != 0 || t.pending_selected != 0 ||
      amplify_.on()) {
    return;
  }
  uint64_t owed = DelayLedger::owed_at(word, t.delays);
  uint64_t carry_ns = carry(t);
  if (owed <= carry_ns) {
    t.piece_due = 0;
    t.quiet_word = word;
    return;
  }
  // What is left is paced (no more than a sample's worth beyond the carry): quiet until the next
  // piece is due. Otherwise (the piece is due already) not quiet, even at a word it was quiet at
  // before.
  uint64_t now = env_.now_ns();
  if (experiment_.period_ns.load(std::memory_order_relaxed) != 0 &&
      owed <= carry_ns + sample_worth() && t.next_piece_ns > now) {
    t.piece_due = env_.deadline_after(t.next_piece_ns - now);
    t.quiet_word = word;
  } else {
    t.quiet_word = kNotQuiet;
  }
}

uint64_t DelayProtocol::own_speedup_ns(ThreadDelays& t) {
  uint64_t ns = t.pending_selected * experiment_.ledger.delay_ns();
  t.pending_selected = 0;
  if (t.arrivals && amplify_.on()) {
    uint64_t arrivals = 0;
    for (ArrivalCounter* a = t.arrivals; a; a = a->next_in_thread) {
      arrivals += __atomic_load_n(&a->counter.count, __ATOMIC_RELAXED);
    }
    uint64_t fresh = arrivals > t.pacer.seen() ? arrivals - t.pacer.seen() : 0;
    uint64_t earned =
        t.pacer.on_arrivals(amplify_, arrivals, env_.now_ns(), t.paused_ns + t.blocked_ns);
    // The first look in an experiment may see arrivals from before it began (hooks skip the
    // ledger between experiments): they earn nothing here.
    bool first_look = t.arrivals_epoch != experiment_.ledger.epoch();
    if (fresh > 0 && experiment_.ledger.active() && first_look) {
      t.arrivals_epoch = experiment_.ledger.epoch();
      experiment_.arrival_threads.fetch_add(1, std::memory_order_relaxed);
    } else if (fresh > 0 && experiment_.ledger.active()) {
      ns += earned;
      experiment_.arrival_speedup_ns.fetch_add(earned, std::memory_order_relaxed);
      if (uint64_t period = t.pacer.period_ns()) {
        experiment_.arrival_period_sum_ns.fetch_add(fresh * period, std::memory_order_relaxed);
        experiment_.arrivals_with_period.fetch_add(fresh, std::memory_order_relaxed);
      }
    }
  }
  if (ns != 0 && experiment_.ledger.active()) {
    // Its own samples of the line (or arrivals under load amplification) cancel what it owes the
    // others: it takes turns with them and carries a sample's worth (carry()).
    t.selected_epoch = experiment_.ledger.epoch();
  }
  return ns;
}

void DelayProtocol::settle(ThreadDelays& t, uint64_t carry_ns, bool in_pieces) {
  uint64_t faster = own_speedup_ns(t);
  if (!experiment_.ledger.active()) {
    return;  // no experiment
  }
  if (t.member_wake_ns != 0) {
    credit_relayed(t);
  }
  uint64_t raised = 0;
  uint64_t local = 0, global = 0;
  if (ledger_trace::on()) {
    local = t.delays.ns;
    global = experiment_.ledger.global_ns();
  }
  uint64_t owed = 0;
  uint64_t period = experiment_.period_ns.load(std::memory_order_relaxed);
  if (!in_pieces || carry_ns == 0 || period == 0 || amplify_.on()) {
    owed = experiment_.ledger.advance(t.delays, faster, &raised, carry_ns);
  } else {
    raised = experiment_.ledger.absorb(t.delays, faster);
    owed = take_paced(t, carry_ns, period);
  }
  ledger_trace::note(&t, Event::kSettle, faster, global, local, owed);
  inserted(t, raised);
  if (owed != 0 && t.block_debt_ns != 0 && t.locks_held == 0 &&
      t.blocked_now.load(std::memory_order_relaxed)) {
    // A signal while it waits (before_lock_block, before_meeting) pays of the debt it carried
    // in, the oldest it owes: the wake's credit must not charge that part again.
    t.block_debt_ns -= std::min(t.block_debt_ns, owed);
  }
  pause(t, owed);
}

uint64_t DelayProtocol::take_paced(ThreadDelays& t, uint64_t carry_ns, uint64_t period_ns) {
  uint64_t owed = experiment_.ledger.owed(t.delays);
  if (owed <= carry_ns) {
    return 0;
  }
  uint64_t beyond = owed - carry_ns;
  uint64_t worth = sample_worth();
  uint64_t pay = beyond > worth ? beyond - worth : 0;  // beyond a sample's worth more: at once
  uint64_t now = env_.now_ns();
  if (now >= t.next_piece_ns) {
    pay = std::min(beyond, pay + experiment_.ledger.delay_ns());
    // One delay a period pays one thread's samples of the line as they come; owing more than a
    // sample's worth beyond the carry (several threads run the line), the pieces come faster.
    uint64_t gap =
        beyond > worth
            ? static_cast<uint64_t>(static_cast<unsigned __int128>(period_ns) * worth / beyond)
            : period_ns;
    t.next_piece_ns = now + gap;
  }
  return pay == 0 ? 0 : experiment_.ledger.take_owed(t.delays, owed - pay);
}

void DelayProtocol::pause(ThreadDelays& t, uint64_t ns) {
  uint64_t sleep = DelayLedger::pause_for(t.delays, ns);
  if (sleep == 0) {
    return;
  }
  int64_t overshoot = overshoot_ns_.load(std::memory_order_relaxed);
  if (static_cast<int64_t>(sleep) <= overshoot) {
    // Too short to sleep accurately: owed until the next pause.
    DelayLedger::paused(t.delays, sleep, 0);
    return;
  }
  uint64_t ask = sleep - static_cast<uint64_t>(overshoot > 0 ? overshoot : 0);
  t.pause_end_ns.store(env_.now_ns() + ask, std::memory_order_relaxed);
  t.before_stopping(false);
  uint64_t start = env_.now_ns();
  env_.sleep_ns(ask);
  uint64_t slept = env_.now_ns() - start;
  t.pause_end_ns.store(0, std::memory_order_relaxed);
  DelayLedger::paused(t.delays, sleep, slept);
  t.paused_ns += slept;
  paused_ns_.fetch_add(slept, std::memory_order_relaxed);
  if (ledger_trace::on()) {
    ledger_trace::note(&t, Event::kPause, sleep, slept, t.delays.ns,
                       experiment_.ledger.global_ns());
  }
  // Moving average over pauses, 1/8 weight to the newest (a racy update loses one sample at worst).
  int64_t seen = static_cast<int64_t>(slept) - static_cast<int64_t>(ask);
  overshoot_ns_.store(overshoot + (seen - overshoot) / 8, std::memory_order_relaxed);
}

void DelayProtocol::catch_up(ThreadState& t, bool keep_carry, bool in_pieces) {
  if (!experiment_.ledger.active() || t.locks_held > 0) {
    return;  // nothing to pay, or still holding a lock: paid at the last release
  }
  with_delays(t, [&] {
    uint64_t word = experiment_.ledger.word();
    env_.collect(t);
    settle(t, keep_carry ? carry(t) : 0, in_pieces);
    note_quiet(t, word);
  });
  if (t.pending_selected != 0) {  // samples that arrived meanwhile
    catch_up(t, keep_carry, in_pieces);
  }
}

void DelayProtocol::catch_up(ThreadState& t) {
  catch_up(t, true, true);
}

void DelayProtocol::catch_up_fully(ThreadState& t) {
  // Other threads keep running (and inserting delays) while this one pauses; a thread about
  // to carry on after a sleep pays those too, or the next thing it does comes early.
  for (int round = 0; round < 16; round++) {
    if (t.in_ledger) {
      return;  // called from a signal handler inside another hook: that hook owns the delays
    }
    catch_up(t, false, false);
    if (t.locks_held > 0 || experiment_.ledger.owed(t.delays) == 0) {
      return;
    }
  }
}

void DelayProtocol::lock_acquired(ThreadState& t) {
  // Noted and counted together: a sample in between would see the lock held with the last
  // lock's debt.
  if (t.locks_held > 0 || t.in_ledger || !experiment_.ledger.active()) {
    t.locks_held++;
    return;
  }
  with_delays(t, [&] {
    note_lock_debt_now(t);
    t.locks_held++;
  });
}

void DelayProtocol::note_lock_debt(ThreadDelays& t) {
  if (!experiment_.ledger.active()) {
    return;
  }
  with_delays(t, [&] { note_lock_debt_now(t); });
}

void DelayProtocol::note_lock_debt_now(ThreadDelays& t) {
  t.lock_debt_ns = experiment_.ledger.owed(t.delays, &t.lock_epoch);
}

void DelayProtocol::before_block(ThreadState& t) {
  // In full, no sample's worth carried: the wake may credit the thread up to its waker's count,
  // which would forgive what it ran up before it blocked.
  catch_up(t, false, false);
  blocking(t, t.locks_held > 0);
}

void DelayProtocol::before_lock_block(ThreadState& t) {
  // Where the selected line runs holding a lock, a thread that waits for a lock waits for the
  // line: it pays all first, as before any wait, and the wait hides the pause (waiters of a
  // dominating critical section). Where the line runs outside any lock, the wait is not for it:
  // as if the lock were free, the thread pays as at any hook and carries the rest into the lock,
  // paid after its release (lock_acquired notes it as the lock's debt); the wait keeps it as
  // block debt, which no credit forgives. Paid in full first, it was a pause of up to twice the
  // carry (4 ms at 50% with the timer sampler) before a wait of microseconds, and a bounded
  // queue's other stage stalled (docs/experiments.md, Lock waits).
  if (!experiment_.line_outside_locks()) {
    before_block(t);
    return;
  }
  catch_up(t, true, true);
  blocking(t, true);
}

void DelayProtocol::before_meeting(ThreadState& t) {
  // Beyond its carry, as at any hook, and the rest kept through the wait: paying it all
  // here broke the turn-taking the carry absorbs. Threads that meet every round and all run the
  // selected line paid for each other's samples at every meeting, before their own samples of the
  // line came to cancel them, and each such pause held up the whole meeting (docs/experiments.md,
  // Meetings). Not in pieces: what it carries into the wait is its carry at most
  // (a thread that does not run the line pays the rest of a lump here: with perf's samples it
  // would have paid it as it came).
  catch_up(t, true, false);
  blocking(t, true);
}

void DelayProtocol::blocking(ThreadState& t, bool keep_debt) {
  // The time blocked matters only under load amplification (the credit's cap, an arrival
  // thread's own period) and where samples come in lumps (the wake's credit): a clock read is a
  // fifth of a contended lock's cost.
  t.block_start_ns = t.arrivals || amplify_.on() || experiment_.lumpy() ? env_.now_ns() : 0;
  t.wake_cap_epoch = kNoEpoch;  // the credits of this wait work out their own cap
  // What it still owes was run up while it was running, not while blocked: no wake may forgive
  // it. A thread holding a lock (cond_wait) blocks without paying. (Paying the run-up here, before
  // a cond_wait releases the mutex, was measured worse: docs/measured-choices.md.)
  t.block_debt_ns = 0;
  if (keep_debt && experiment_.ledger.active() && !t.in_ledger) {
    with_delays(t, [&] { t.block_debt_ns = experiment_.ledger.owed(t.delays, &t.block_epoch); });
  }
  if (ledger_trace::on()) {
    ledger_trace::note(&t, Event::kBlock, t.block_debt_ns, t.delays.ns,
                       experiment_.ledger.global_ns(), static_cast<uint64_t>(t.locks_held));
  }
  t.show_blocked();
}

void DelayProtocol::before_wake(ThreadState& t, const void* key, HandoffTable& table) {
  if (!experiment_.ledger.active()) {
    return;
  }
  with_delays(t, [&] {
    // Up to date, so the woken thread is credited with every delay inserted while it waited. A
    // lock holder first pays what it ran up holding the lock, so its waiters wait for it too.
    env_.collect(t);
    count_own(t);
    if (t.locks_held > 0) {
      pay_run_up(t);
    }
    table.publish(key, t.delays.epoch, t.delays.ns);
    if (ledger_trace::on()) {
      ledger_trace::note(&t, Event::kPublish, t.delays.ns, reinterpret_cast<uintptr_t>(key),
                         experiment_.ledger.global_ns());
    }
  });
}

void DelayProtocol::after_block(ThreadState& t, const void* key, bool woken) {
  uint64_t blocked = UINT64_MAX;  // the start was not seen: no cap
  uint64_t start = t.block_start_ns;
  if (start != 0) {
    blocked = env_.now_ns() - start;
    t.block_start_ns = 0;
    if (t.arrivals) {
      t.blocked_ns += blocked;
    }
  }
  if (ledger_trace::on()) {
    ledger_trace::note(&t, Event::kWake, woken, reinterpret_cast<uintptr_t>(key), t.delays.ns,
                       experiment_.ledger.global_ns());
  }
  if (woken && experiment_.ledger.active()) {
    credit_woken(t, key, blocked);
  }
  if (woken && start != 0) {
    // After its credit, which the earlier waits decide: one of the waits the periods of the next
    // lumps may fall in (a timeout's is not: no wake would have credited them).
    t.waits.add(start, start + blocked, experiment_.wait_bucket_ns());
  }
  t.wake_cap_epoch = kNoEpoch;
  t.block_debt_ns = 0;
  if (t.locks_held > 0) {
    // Back from a wait holding a lock (cond_wait took it again): as if taken afresh. A wait for
    // a second lock while holding one is taken the same way, so what the first had run up is
    // then paid after its release (rare; not told apart here).
    note_lock_debt(t);
  }
  // Credited by now: an experiment that ends from here on reads its own total.
  t.blocked_now.store(false, std::memory_order_release);
}

void DelayProtocol::credit_woken(ThreadDelays& t, const void* key, uint64_t blocked,
                                 const HandoffTable& table) {
  with_delays(t, [&] {
    // Credited up to the waker's total (the global total when the waker is unknown). Under load
    // amplification, also never more than the time spent blocked: an arrival's speedup lands on
    // the ledger in one lump as the arrival wakes a consumer, and a consumer that waited less
    // than that lump must pay the rest (or it would serve an amplified load at no cost). Without
    // amplification there is no cap: line-speedup delays land a sample (a sampling period) at a
    // time, covering time the waiter spent blocked in earlier waits, and capping those
    // under-predicts lock-bound programs badly (docs/measured-choices.md).
    uint64_t epoch = experiment_.ledger.epoch();
    uint64_t waker = key ? table.read(key, epoch) : experiment_.ledger.global_ns();
    // Never beyond what was raised within the wait as perf's samples would have raised it: of a
    // lump that came during the wait, the periods before it began fell while the thread ran
    // (owed) or in its earlier waits (credited). Worked out at the wait's first credit and kept
    // for a second one (a shared futex: the run's table, then this process's).
    if (t.wake_cap_epoch != epoch) {
      t.wake_cap_ns = UINT64_MAX;  // the wait's start unknown: as before lumps were looked at
      if (blocked != UINT64_MAX) {
        uint64_t early = early_lump_ns(t, blocked);
        uint64_t global = experiment_.ledger.global_ns();
        t.wake_cap_ns = global > early ? global - early : 0;
      }
      t.wake_cap_epoch = epoch;
    }
    waker = std::min(waker, t.wake_cap_ns);
    // Kept until after_block (or wait_ended) clears it: a wait credited from two tables (a shared
    // futex: the run's, then this process's) keeps it through both.
    uint64_t kept = t.block_epoch == epoch ? t.block_debt_ns : 0;
    uint64_t before = t.delays.ns;
    experiment_.ledger.credit_to(t.delays, waker, amplify_.on() ? blocked : UINT64_MAX, kept);
    ledger_trace::note(&t, Event::kCredit, waker, before, t.delays.ns, kept);
  });
}

void DelayProtocol::absorb_own(ThreadState& t, uint64_t faster_ns, bool on_line) {
  if (faster_ns == 0 || !experiment_.ledger.active()) {
    return;
  }
  with_delays(t, [&] {
    if (on_line) {
      t.selected_epoch = experiment_.ledger.epoch();
    }
    inserted(t, experiment_.ledger.absorb(t.delays, faster_ns));
    t.quiet_word = kNotQuiet;  // its local total moved: the next hook settles afresh
  });
}

void DelayProtocol::add_arrival_counter(ThreadState& t, ArrivalCounter* counter) {
  with_delays(t, [&] {
    counter->next_in_thread = t.arrivals;
    t.arrivals = counter;
  });
}

}  // namespace coz
