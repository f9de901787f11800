// The per-thread delay protocol with its clock, sleeps and samples scripted: two or three
// threads' calls interleaved by hand, each rule of delay_protocol.h checked by what each thread
// pauses (slept) and what the ledger holds.
#include "delays/delay_protocol.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <vector>

namespace coz {
namespace {

constexpr uint64_t kMs = 1000000;

// A clock that moves only when a thread sleeps (by exactly what it asked, plus `overshoot`),
// and samples handed out as the test says.
class ScriptedEnvironment : public DelayEnvironment {
 public:
  uint64_t now_ns() override { return now; }
  void sleep_ns(uint64_t ns) override {
    now += ns + overshoot;
    slept.push_back(ns + overshoot);
    if (while_sleeping) {
      while_sleeping();  // what other threads do meanwhile
    }
  }
  bool collect(ThreadState& t) override {
    collections++;
    t.pending_selected += samples[&t];
    samples[&t] = 0;
    return true;
  }
  void inserted(uint64_t ns) override { inserted_total += ns; }
  uint64_t deadline_after(uint64_t ns) override { return now + ns; }

  uint64_t slept_total() const {
    uint64_t sum = 0;
    for (uint64_t s : slept) {
      sum += s;
    }
    return sum;
  }

  uint64_t now = 1;  // 0 means "no block start seen"
  uint64_t overshoot = 0;
  std::vector<uint64_t> slept;
  std::map<const ThreadState*, uint64_t> samples;  // selected-line samples waiting per thread
  uint64_t inserted_total = 0;
  uint64_t collections = 0;              // collect() calls: the protocol's own cost at a hook
  std::function<void()> while_sleeping;  // run inside each sleep
};

class DelayProtocolTest : public ::testing::Test {
 protected:
  // An experiment at `speedup_percent` of a 1 ms sampling period.
  void begin(int speedup_percent) { experiment.ledger.begin(speedup_percent * kMs / 100); }
  // The same with pauses in pieces (the runner sets the period) and the timer sampler's samples,
  // four periods each.
  void begin_paced(int speedup_percent) {
    begin(speedup_percent);
    experiment.period_ns.store(kMs);
    experiment.sample_periods.store(4);
    experiment.lumpy_samples.store(true);
  }
  // `t` blocks from `from_ns` for `ns`, and `waker`, publishing its count, ends the wait.
  void waits(ThreadState& t, uint64_t from_ns, uint64_t ns, ThreadState& waker) {
    env.now = from_ns;
    protocol.before_block(t);
    env.now += ns;
    protocol.before_wake(waker, &wait_key);
    protocol.after_block(t, &wait_key, true);
  }
  // `t`'s own samples fell in the selected line in this experiment: it carries a sample's worth
  // (DelayProtocol::carry), where a thread that does not run the line carries one delay.
  void runs_line(ThreadState& t) { t.selected_epoch = experiment.ledger.epoch(); }
  // At 100%, with the timer's samples: b, which runs the line too, owes a's 8 ms as it begins,
  // at 10 ms, to wait for a lock (the line running outside any lock).
  void b_waits_for_a_lock_owing_8_ms() {
    begin_paced(100);
    runs_line(b);
    env.now = 10 * kMs;
    sample(a, 8);
    protocol.before_lock_block(b);
  }
  // `n` samples in the selected line arrive for `t` and its signal handler runs.
  void sample(ThreadState& t, uint64_t n) {
    env.samples[&t] += n;
    protocol.on_signal(t);
  }

  DelayProtocolTest() {
    a.raiser_id = 1;  // their ids on the lumps they raise
    b.raiser_id = 2;
  }

  ExperimentState experiment;
  HandoffTable handoffs;
  AmplifySettings amplify;
  ScriptedEnvironment env;
  DelayProtocol protocol{experiment, handoffs, amplify, env};
  ThreadState a, b;
  int wait_key = 0;  // what waits() blocks on
};

TEST_F(DelayProtocolTest, ASpedUpLinePausesTheOtherThreadsOnly) {
  begin(100);
  sample(a, 3);
  EXPECT_TRUE(env.slept.empty()) << "a thread never pauses for its own samples";
  EXPECT_EQ(experiment.ledger.global_ns(), 3 * kMs);
  EXPECT_EQ(env.inserted_total, 3 * kMs);
  protocol.catch_up(b);
  EXPECT_EQ(env.slept_total(), 2 * kMs)
      << "b pays a's three samples at its next chance, less one sample's worth it may carry";
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs) << "paying in full (after a sleep, at exit) pays it too";
  EXPECT_EQ(b.paused_ns, 3 * kMs);
  EXPECT_EQ(protocol.paused_ns(), 3 * kMs);
}

TEST_F(DelayProtocolTest, TwoThreadsRunningTheLineTogetherPauseNeither) {
  // Both threads run the selected line and hit hooks between their samples (a parallel loop
  // between barriers): each is one sample ahead in turn. Paying that at every hook would turn
  // a parallel speedup into serial pauses; the sample's worth each may carry absorbs it.
  begin(50);
  for (int i = 0; i < 20; i++) {
    sample(a, 1);
    protocol.catch_up(b);
    sample(b, 1);
    protocol.catch_up(a);
  }
  EXPECT_TRUE(env.slept.empty());
  EXPECT_EQ(experiment.ledger.global_ns(), 20 * kMs / 2);
  sample(a, 3);  // a pulls ahead by more than one sample: b pays the excess
  protocol.catch_up(b);
  EXPECT_EQ(env.slept_total(), 2 * kMs / 2);
}

TEST_F(DelayProtocolTest, ABaselineKeepsAccountsButNeverPauses) {
  // A 0% experiment does what a speedup experiment does at every hook (collects, settles,
  // publishes, notes lock debts), with nothing ever owed: the hooks cost the same in both.
  ScriptedEnvironment speedup_env;
  ExperimentState speedup_experiment;
  HandoffTable speedup_handoffs;
  DelayProtocol speedup{speedup_experiment, speedup_handoffs, amplify, speedup_env};
  ThreadState sa, sb;
  speedup_experiment.ledger.begin(kMs);
  speedup_env.samples[&sa] = 5;
  speedup.on_signal(sa);
  int key = 0;
  speedup.lock_acquired(sb);
  speedup.before_wake(sb, &key);
  speedup.lock_released(sb);
  speedup.catch_up(sb);
  speedup.before_block(sa);
  speedup.after_block(sa, &key, true);

  begin(0);
  env.samples[&a] = 5;
  protocol.on_signal(a);
  protocol.lock_acquired(b);
  protocol.before_wake(b, &key);
  protocol.lock_released(b);
  protocol.catch_up(b);
  protocol.before_block(a);
  protocol.after_block(a, &key, true);

  EXPECT_TRUE(env.slept.empty());
  EXPECT_EQ(experiment.ledger.global_ns(), 0u);
  EXPECT_FALSE(speedup_env.slept.empty()) << "the same calls at 100% pause";
  EXPECT_EQ(env.collections, speedup_env.collections) << "as many samples collections";
  EXPECT_EQ(a.delays.epoch, experiment.ledger.epoch()) << "accounts kept in this experiment";
  EXPECT_EQ(b.delays.epoch, experiment.ledger.epoch());
  EXPECT_EQ(b.lock_epoch, experiment.ledger.epoch()) << "the lock's debt noted, as at 100%";
  EXPECT_EQ(a.pending_selected, 0u) << "samples given to the ledger";
}

TEST_F(DelayProtocolTest, DebtCarriedIntoALockIsPaidAfterItsLastRelease) {
  begin(100);
  sample(a, 2);  // b owes a's 2 ms before it takes its locks
  protocol.lock_acquired(b);
  protocol.lock_acquired(b);  // nested
  sample(b, 0);               // b's own signal while it holds the locks: counts, does not pause
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty()) << "debt carried in is never paid while others may wait";
  protocol.lock_released(b);
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty()) << "one lock still held";
  protocol.lock_released(b);
  protocol.catch_up(b);  // after_release of the last lock
  EXPECT_EQ(env.slept_total(), 2 * kMs - kMs) << "less the sample's worth it may carry";
}

TEST_F(DelayProtocolTest, DebtRunUpHoldingALockIsPaidBeforeItsRelease) {
  // Work beside a lock: a runs the line while b holds the lock. In the virtual world b's
  // critical section is that much longer against a's work, and its waiters wait for it.
  begin(100);
  sample(a, 1);
  protocol.lock_acquired(b);  // carries 1 ms in
  sample(a, 2);               // run up while b holds the lock
  sample(b, 0);
  EXPECT_EQ(env.slept_total(), 2 * kMs) << "paid at b's sample, holding the lock";
  sample(a, 3);
  int key = 0;
  protocol.before_wake(b, &key);  // unlocking: pays what was run up, then publishes
  EXPECT_EQ(env.slept_total(), 5 * kMs);
  EXPECT_EQ(handoffs.read(&key, experiment.ledger.epoch()), 5 * kMs)
      << "the count published covers all but the carried-in debt";
  protocol.lock_released(b);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 6 * kMs) << "the carried-in debt after the release";
}

TEST_F(DelayProtocolTest, AWaitEndedHoldingTheLockCarriesWhatItStillOwesAfterCredit) {
  begin(100);
  protocol.lock_acquired(b);
  protocol.before_block(b);  // cond_wait: blocks holding the mutex, owing nothing
  sample(a, 2);
  int key = 0;
  protocol.before_wake(a, &key);  // publishes 2 ms
  sample(a, 1);                   // after the wake: not credited
  protocol.after_block(b, &key, true);
  sample(b, 0);
  EXPECT_TRUE(env.slept.empty()) << "what it owes on return is carried in, as at a lock";
  protocol.lock_released(b);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 1 * kMs);
}

TEST_F(DelayProtocolTest, RunUpAfterTheBoundIsStillPaidHoldingTheLock) {
  begin(100);
  sample(a, DelayProtocol::kMaxDeferredNs / kMs);
  protocol.lock_acquired(b);  // carried in: at the bound
  sample(b, 0);
  EXPECT_EQ(env.slept_total(), DelayProtocol::kMaxDeferredNs - kMs) << "paid but a sample's worth";
  sample(a, 5);
  sample(b, 0);
  EXPECT_EQ(env.slept_total(), DelayProtocol::kMaxDeferredNs + 4 * kMs)
      << "what others add afterwards is run-up, paid holding the lock";
}

TEST_F(DelayProtocolTest, ALockHolderPaysOnceItsDebtPassesTheBound) {
  begin(100);
  sample(a, DelayProtocol::kMaxDeferredNs / kMs - 1);
  protocol.lock_acquired(b);  // carried in
  sample(b, 0);
  EXPECT_TRUE(env.slept.empty());
  sample(a, 1);
  sample(b, 0);
  EXPECT_EQ(env.slept_total(), DelayProtocol::kMaxDeferredNs - kMs)
      << "a debt that large is paid even holding a lock (less the sample's worth it carries)";
}

TEST_F(DelayProtocolTest, AWokenThreadIsCreditedUpToWhatItsWakerPublished) {
  begin(100);
  protocol.before_block(b);  // b waits on `key`, owing nothing
  sample(a, 4);              // a runs the line meanwhile
  int key = 0;
  protocol.before_wake(a, &key);  // a publishes 4 ms and releases b
  protocol.after_block(b, &key, true);
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty()) << "b was blocked all along: a's speedup cost it nothing";
}

TEST_F(DelayProtocolTest, AWakerThatIsBehindCreditsOnlyWhatItPublished) {
  begin(100);
  ThreadState c;
  protocol.before_block(b);
  sample(c, 6);  // a third thread raises the total to 6 ms while b waits
  int key = 0;
  protocol.before_wake(a, &key);  // a has paid nothing yet: publishes 0
  protocol.after_block(b, &key, true);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 6 * kMs) << "no credit beyond the waker's own count";
}

// Runs across programs: a wait ended by another member's data (a socket) is credited with what
// that member had been raised to, which covers this process's own raises and the other members'.
TEST_F(DelayProtocolTest, AThreadAnotherMemberWokeOwesNoneOfThisProcesssRaisesBeforeIt) {
  begin(100);
  protocol.before_block(b);  // b waits in epoll for the next request
  sample(a, 4);              // a runs the line for the last one; the member that sent it waited
  protocol.woken_by_member(b);
  env.now += kMs;
  sample(a, 2);  // raised after the wake: owed
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 2 * kMs) << "only what this process raised after b woke is paid";
}

TEST_F(DelayProtocolTest, AThreadAnotherMemberWokeIsCreditedItsRaisesSampledBeforeTheWake) {
  begin(100);
  protocol.before_block(b);
  env.now = 10 * kMs;
  protocol.woken_by_member(b);
  protocol.catch_up_fully(b);
  EXPECT_TRUE(env.slept.empty());
  uint64_t epoch = experiment.ledger.epoch();
  // The other member's raises arrive late: one sampled before the wake, one after it.
  experiment.relayed.add(epoch, 5 * kMs, 9 * kMs);
  experiment.ledger.raise_to(5 * kMs);
  protocol.catch_up_fully(b);
  EXPECT_TRUE(env.slept.empty()) << "sampled before the wake, however late it arrived: credited";
  experiment.relayed.add(epoch, 8 * kMs, 11 * kMs);
  experiment.ledger.raise_to(8 * kMs);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs) << "sampled after the wake: owed";
}

// An off-CPU wait (a read from a pipe) begins without paying: the wake from another process of
// the tree that ends it credits only what was inserted while the thread waited; what it owed as
// the wait began stays owed.
TEST_F(DelayProtocolTest, AWaitThatBeganOwingKeepsItsDebtThroughAWakersCredit) {
  begin(100);
  sample(a, 2);
  uint64_t word = experiment.ledger.word();
  sample(a, 5);
  int key = 0;
  protocol.before_wake(a, &key);  // a is at 7 ms
  protocol.wait_began(b, word);
  protocol.woken_across(b, handoffs, &key, UINT64_MAX);
  protocol.wait_ended(b);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 2 * kMs);
}

TEST_F(DelayProtocolTest, AThreadPaysInFullBeforeItBlocks) {
  // The sample's worth it may carry elsewhere is paid too: a wake could credit it away.
  begin(100);
  sample(a, 3);
  protocol.before_block(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs);
}

TEST_F(DelayProtocolTest, AThreadCarriesASampleIntoAMeetingThatNoWakeForgives) {
  // At a meeting it pays beyond one sample's worth, as at any hook; the sample's worth stays owed
  // through the wake, whose credit (up to the waker's total) would otherwise forgive it.
  begin(100);
  sample(a, 3);
  protocol.before_meeting(b);
  EXPECT_EQ(env.slept_total(), 2 * kMs);
  int key = 0;
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, true);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs);
}

TEST_F(DelayProtocolTest, OneSamplesWorthIsWhatOneSignalHandsOut) {
  // A timer sampler's signal comes at the scheduler's tick and stands for several periods: one
  // sample of the line then owes the others four delays at once, and that lump is what they may
  // carry. With one period per sample (perf), three of them are paid at once.
  begin(100);
  runs_line(b);
  experiment.sample_periods.store(4);
  sample(a, 4);
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty());
  experiment.sample_periods.store(1);
  protocol.catch_up(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs);
}

TEST_F(DelayProtocolTest, PausesComeInPiecesOfOneDelayAPeriodApart) {
  // A timer sampler's sample hands out four delays at once (2 ms at 50%). A thread that owes them
  // beyond its carry pays one delay a period at its samples and hooks, as it would have paid
  // them had they come a period at a time, not in one pause that stalls whoever waits on it.
  begin_paced(50);
  runs_line(b);
  sample(a, 8);  // 4 ms owed: 2 ms beyond the carry
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs / 2}) << "one delay";
  protocol.catch_up(b);
  EXPECT_EQ(env.slept.size(), 1u) << "the next piece is a period after the first began";
  EXPECT_EQ(b.quiet_word, experiment.ledger.word())
      << "quiet meanwhile: its hooks take the fast path";
  EXPECT_EQ(b.piece_due, 1 + kMs) << "until the next piece is due";
  env.now += kMs / 2;
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, (std::vector<uint64_t>{kMs / 2, kMs / 2}));
  protocol.before_block(b);
  EXPECT_EQ(env.slept_total(), 4 * kMs) << "before it blocks it still pays in full";
}

TEST_F(DelayProtocolTest, AThreadThatDoesNotRunTheLinePaysALumpInPiecesFromOneDelayOn) {
  // Its own samples never cancel what it owes, so a sample's worth carried would only hold its
  // pauses back by a tick: between them it ran ahead (a bounded queue's consumer drained the
  // queue and waited item by item). It carries one delay, as with perf's samples, and pays the
  // rest of a lump one delay a period.
  begin_paced(50);
  sample(a, 4);  // one timer signal: 2 ms owed
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs / 2});
  EXPECT_EQ(b.quiet_word, experiment.ledger.word()) << "quiet between pieces";
  EXPECT_EQ(b.piece_due, 1 + kMs);
  for (int i = 0; i < 3; i++) {
    env.now += kMs;
    protocol.catch_up(b);
  }
  EXPECT_EQ(env.slept, (std::vector<uint64_t>{kMs / 2, kMs / 2, kMs / 2}));
  EXPECT_EQ(experiment.ledger.owed(b.delays), kMs / 2) << "one delay carried";
  EXPECT_EQ(b.quiet_word, experiment.ledger.word());
}

TEST_F(DelayProtocolTest, AThreadCarriesASamplesWorthFromItsFirstSampleOfTheLineInAnExperiment) {
  begin_paced(50);
  sample(a, 4);  // 2 ms owed
  sample(b, 1);  // its own sample cancels 0.5 ms; the rest is within a sample's worth
  EXPECT_TRUE(env.slept.empty());
  experiment.ledger.begin(kMs / 2);  // the next experiment: not yet
  sample(a, 4);
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs / 2});
}

TEST_F(DelayProtocolTest, ASampleOfTheLineCollectedAtAHookCountsForTheCarryAtOnce) {
  begin_paced(50);
  sample(a, 4);         // 2 ms owed
  env.samples[&b] = 1;  // its first sample of the line, collected by the hook
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty()) << "1.5 ms left, within a sample's worth";
}

TEST_F(DelayProtocolTest, AWaitOnTheSelectedLineCountsAsRunningIt) {
  // Blocked time of the selected line (blocked_time.h) cancels the thread's debt as its samples
  // would: it takes turns and carries a sample's worth. A follower's start-up does not.
  begin_paced(50);
  protocol.absorb_own(b, kMs / 2, false);
  sample(a, 5);  // 2.5 ms; b is 0.5 ms ahead: owes 2 ms
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs / 2}) << "one delay carried";
  protocol.absorb_own(b, kMs / 2, true);
  env.now += kMs;
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs / 2}) << "1 ms left, within a sample's worth";
}

TEST_F(DelayProtocolTest, OwingMoreThanTwoSamplesWorthPaysTheExcessAtOnce) {
  // Pieces of one delay a period keep up with one thread running the line. Owing more (several
  // threads run it, or the thread had no chance to pay), it pays what is beyond its carry and a
  // sample's worth more (twice the carry, for a thread that runs the line) at once, with its
  // piece.
  begin_paced(50);
  runs_line(b);
  sample(a, 12);  // 6 ms owed: 4 ms beyond the carry, 2 ms beyond twice the carry
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{2 * kMs + kMs / 2});
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, (std::vector<uint64_t>{2 * kMs + kMs / 2, kMs / 2}))
      << "a pause as long as the gap counts toward it";
}

TEST_F(DelayProtocolTest, APieceDueAlreadyLeavesTheThreadOffTheFastPath) {
  // At 100% a piece (1 ms) lasts as long as the gap to the next: once paid, the next is due, so
  // the thread is not quiet (ThreadDelays::quiet_word), even at a word it was quiet at before.
  begin_paced(100);
  runs_line(b);
  sample(a, 8);  // 8 ms owed: 4 ms beyond the carry
  b.quiet_word = experiment.ledger.word();
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs});
  EXPECT_EQ(b.quiet_word, kNotQuiet);
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, (std::vector<uint64_t>{kMs, kMs}));
}

TEST_F(DelayProtocolTest, BeforeWaitingForALockAThreadPaysAsAtAnyHookAndCarriesTheRestIn) {
  // 8 ms owed at 100%: a piece (1 ms), and the rest carried into the lock as into a free one,
  // kept through the wait (a wake never forgives it) and paid after the release.
  b_waits_for_a_lock_owing_8_ms();
  EXPECT_TRUE(experiment.line_outside_locks());
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs});
  env.now += kMs / 10;
  int key = 0;
  protocol.before_wake(a, &key);  // a publishes 8 ms
  protocol.lock_acquired(b);      // the hooks count the lock held before the credit
  protocol.after_block(b, &key, true);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 7 * kMs) << "not forgiven by the wake";
  EXPECT_EQ(b.lock_debt_ns, 7 * kMs) << "the lock's carried-in debt";
  int lock = 0;
  protocol.before_wake(b, &lock);  // its unlock: nothing paid inside
  EXPECT_EQ(env.slept, std::vector<uint64_t>{kMs});
  protocol.lock_released(b);
  env.now += kMs;
  protocol.catch_up(b);  // after the release: in pieces, as at any hook
  EXPECT_EQ(env.slept, (std::vector<uint64_t>{kMs, kMs}));
}

TEST_F(DelayProtocolTest, WhatASignalPaysDuringALockWaitIsNotChargedAgainAtTheWake) {
  b_waits_for_a_lock_owing_8_ms();  // pays a piece, carries 7 ms in
  env.now += kMs + kMs / 10;
  sample(b, 0);  // a signal during the wait (the lock's spinning): its next piece
  EXPECT_EQ(env.slept, (std::vector<uint64_t>{kMs, kMs}));
  sample(a, 4);  // 4 ms more while b waits: the wake's to credit
  int key = 0;
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, true);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 6 * kMs) << "8 ms, less the two pieces";
}

TEST_F(DelayProtocolTest, WhereTheLineRunsHoldingALockAThreadPaysAllBeforeALockWait) {
  // The line in a critical section: a waiter for a lock waits for it, and the wait hides what
  // it pays first.
  begin_paced(100);
  protocol.lock_acquired(a);
  sample(a, 8);
  EXPECT_FALSE(experiment.line_outside_locks());
  protocol.before_lock_block(b);
  EXPECT_EQ(env.slept_total(), 8 * kMs);
}

TEST_F(DelayProtocolTest, BeforeOtherWaitsAThreadPaysAll) {
  begin_paced(100);
  sample(a, 8);
  protocol.before_block(b);
  EXPECT_EQ(env.slept_total(), 8 * kMs);
}

TEST_F(DelayProtocolTest, AThreadPaysBeyondItsCarryAtOnceBeforeAMeeting) {
  // What it carries into a meeting stays a sample's worth, paced or not (the barrier loop read
  // worse carrying two).
  begin_paced(50);
  runs_line(b);
  sample(a, 8);
  protocol.before_meeting(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{2 * kMs});
}

TEST_F(DelayProtocolTest, AWakeCreditsOnlyTheLumpsPeriodsThatFallWithinTheWait) {
  // A timer sample of four periods raised during a wait of 0.2 ms stands for the raiser's last
  // four periods, 2.8 of them before the wait began: perf's samples would have raised those
  // before it, and the waiter would have paid them. The wake credits the rest; those stay owed.
  begin_paced(100);
  env.now = 10 * kMs;
  protocol.before_block(b);
  env.now += kMs / 5;
  sample(a, 4);
  int key = 0;
  protocol.before_wake(a, &key);  // a publishes 4 ms
  protocol.after_block(b, &key, true);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 14 * kMs / 5);
  // A wait as long as the lump's periods is credited all of them.
  protocol.catch_up_fully(b);
  protocol.before_block(b);
  env.now += 5 * kMs;
  sample(a, 4);
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, true);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 0u);
}

TEST_F(DelayProtocolTest, ALumpRaisedWhileAThreadRanIsOwedWhole) {
  // b waited 2 ms, then ran 0.5 ms; a's sample of four periods comes then. Two of its periods
  // spread back into b's wait, but a's line may have run only while b ran (two workers beside a
  // lock: one's private work beside the other's critical section): owed whole, as before.
  begin_paced(100);
  waits(b, 10 * kMs, 2 * kMs, a);
  env.now += kMs / 2;
  sample(a, 4);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 4 * kMs);
}

TEST_F(DelayProtocolTest, AWakeCreditsLumpsInTheThreadsEarlierWaits) {
  // A lump raised during a short wait whose window reaches back into an earlier wait: that part
  // is credited too, as the earlier wake would have credited it.
  begin_paced(100);
  waits(b, 10 * kMs, kMs, a);
  env.now += kMs;
  protocol.before_block(b);  // and again from 12 ms
  env.now += kMs / 2;
  sample(a, 4);  // window 9.5 to 12.5 ms: of its 2.5 ms before the wait, 1 ms in the first wait
  protocol.before_wake(a, &wait_key);
  protocol.after_block(b, &wait_key, true);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 3 * kMs / 2) << "the 1.5 ms b ran";
}

TEST_F(DelayProtocolTest, WithSamplesOfOnePeriodAWakeCreditsAllRaisedInTheWait) {
  // perf's samples: each stands for its own moment, so none is before the wait.
  begin(100);
  experiment.period_ns.store(kMs);
  protocol.before_block(b);
  EXPECT_EQ(b.block_start_ns, 0u) << "nothing to time the wait for";
  env.now += kMs / 5;
  sample(a, 2);  // two samples drained at once
  EXPECT_EQ(experiment.lumps.added(), 0u) << "not a lump";
  int key = 0;
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, true);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 0u);
}

TEST_F(DelayProtocolTest, WithoutAPeriodAThreadPaysBeyondItsCarryAtOnce) {
  // The pacing needs the sampling period (ExperimentState::period_ns); without one, as before.
  begin(50);
  runs_line(b);
  experiment.sample_periods.store(4);
  sample(a, 8);
  protocol.catch_up(b);
  EXPECT_EQ(env.slept, std::vector<uint64_t>{2 * kMs});
}

TEST_F(DelayProtocolTest, ASampleCarriedIntoAMeetingIsCancelledByTheThreadsOwnSample) {
  // Two threads that run the selected line and meet (a barrier): b owes a's sample as it arrives,
  // and its own sample after the wake cancels it, as it would have without the meeting.
  begin(100);
  sample(a, 1);
  protocol.before_meeting(b);
  int key = 0;
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, true);
  sample(b, 1);
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty());
}

TEST_F(DelayProtocolTest, ATimedOutWaitEarnsNoCredit) {
  begin(100);
  protocol.before_block(b);
  sample(a, 2);
  int key = 0;
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, false);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 2 * kMs);
}

TEST_F(DelayProtocolTest, DebtRunUpWhileHoldingALockIsNotForgivenByAWake) {
  begin(100);
  sample(a, 3);               // b owes 3 ms while running
  protocol.lock_acquired(b);  // and carries them into its lock; cond_wait is entered holding it
  protocol.before_block(b);   // cannot pay: it holds the lock
  EXPECT_TRUE(env.slept.empty());
  sample(a, 2);  // 2 ms more while b is blocked
  int key = 0;
  protocol.before_wake(a, &key);
  protocol.after_block(b, &key, true);
  protocol.lock_released(b);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs)
      << "credited the 2 ms inserted while blocked, not the 3 ms owed before";
}

TEST_F(DelayProtocolTest, PostBlockWithAnUnknownWakerCreditsTheGlobalTotal) {
  begin(100);
  protocol.before_block(b);
  sample(a, 5);
  protocol.after_block(b, nullptr, true);  // COZ_POST_BLOCK(1)
  protocol.catch_up(b);
  EXPECT_TRUE(env.slept.empty());
}

TEST_F(DelayProtocolTest, NanosleepOvershootIsLearntAndCarried) {
  begin(100);
  env.overshoot = 200000;  // every sleep lasts 0.2 ms longer than asked
  for (int i = 0; i < 40; i++) {
    sample(a, 1);
    protocol.catch_up(b);
  }
  uint64_t owed = 40 * kMs;
  uint64_t slept = env.slept_total();
  EXPECT_LT(slept, owed + 2 * kMs) << "overshoot is taken off later pauses";
  EXPECT_GT(slept, owed - 2 * kMs);
  EXPECT_LT(env.slept.back(), kMs + 100000) << "a learnt overshoot: later sleeps ask for less";
}

TEST_F(DelayProtocolTest, ASignalInsideAHookOnlyCounts) {
  begin(100);
  sample(a, 2);
  b.in_ledger = true;  // a hook of b's is updating its delays
  sample(b, 1);
  EXPECT_TRUE(env.slept.empty());
  EXPECT_EQ(b.pending_selected, 1u) << "left for the hook to give to the ledger";
  b.in_ledger = false;
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 1 * kMs) << "a's 2 ms less b's own 1 ms";
}

TEST_F(DelayProtocolTest, CatchUpFullyPaysWhatOthersAddWhileItPauses) {
  begin(100);
  sample(a, 3);
  // While b sleeps, a keeps running the line: one more sample during each of b's first two
  // pauses.
  int left = 2;
  env.while_sleeping = [&] {
    if (left-- > 0) {
      sample(a, 1);
    }
  };
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept.size(), 3u) << "3 ms, then the 1 ms added during it, then the next 1 ms";
  EXPECT_EQ(env.slept_total(), 5 * kMs);
  EXPECT_EQ(experiment.ledger.owed(b.delays), 0u);
}

TEST_F(DelayProtocolTest, ArrivalsUnderAmplificationSpeedTheirThreadUp) {
  amplify.arrival_speedup_ns = 2 * kMs;  // --arrival-speedup 2ms
  begin(0);
  ArrivalCounter arrivals;
  protocol.add_arrival_counter(a, &arrivals);
  arrivals.counter.count = 1;
  sample(a, 0);
  EXPECT_EQ(experiment.ledger.global_ns(), 0u)
      << "the first look in an experiment sees arrivals from before it: they earn nothing";
  EXPECT_EQ(experiment.arrival_threads.load(), 1u);
  env.now += 10 * kMs;  // two more arrivals in 10 ms of a's own time
  arrivals.counter.count = 3;
  sample(a, 0);
  EXPECT_EQ(experiment.ledger.global_ns(), 4 * kMs) << "2 ms of speedup per arrival";
  EXPECT_EQ(experiment.arrival_speedup_ns.load(), 4 * kMs);
  EXPECT_EQ(experiment.arrivals_with_period.load(), 2u);
  EXPECT_EQ(experiment.arrival_period_sum_ns.load(), 2 * 5 * kMs) << "a's period: 5 ms";
  EXPECT_TRUE(env.slept.empty()) << "an arrival thread never pauses for its own arrivals";
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 4 * kMs) << "every other thread is delayed by them";
}

TEST_F(DelayProtocolTest, UnderAmplificationACreditIsCappedByTheTimeBlocked) {
  amplify.arrival_speedup_ns = 2 * kMs;
  begin(100);
  protocol.before_block(b);
  sample(a, 5);
  int key = 0;
  protocol.before_wake(a, &key);  // publishes 5 ms
  env.now += 2 * kMs;             // b was blocked 2 ms
  protocol.after_block(b, &key, true);
  protocol.catch_up_fully(b);
  EXPECT_EQ(env.slept_total(), 3 * kMs) << "credited 2 ms, the time it waited; pays the rest";
}

TEST_F(DelayProtocolTest, NoExperimentNoAccounts) {
  sample(a, 3);
  protocol.catch_up(b);
  protocol.before_wake(a, &a);
  EXPECT_TRUE(env.slept.empty());
  EXPECT_EQ(a.pending_selected, 0u) << "samples outside an experiment are dropped";
}

}  // namespace
}  // namespace coz
