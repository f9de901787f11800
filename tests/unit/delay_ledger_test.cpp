// The delay ledger under simulated interleavings: for each thread, pauses + selected-line samples
// (+ credits) equal the global count once it has caught up; epochs forget old debts; overshoot
// is carried.
#include "experiment/delay_ledger.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "experiment/recent_lumps.h"
#include "threads/recent_waits.h"

namespace coz {
namespace {

constexpr uint64_t kDelay = 1000;

struct SimThread {
  LocalDelays local;
  uint64_t selected = 0;  // samples in the selected line
  uint64_t paused = 0;    // delays paused, in units of kDelay
};

TEST(DelayLedger, OneThreadNeverPausesForItself) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays t;
  EXPECT_EQ(ledger.advance(t, 3 * ledger.delay_ns()), 0u);
  EXPECT_EQ(ledger.advance(t, 2 * ledger.delay_ns()), 0u);
  EXPECT_EQ(ledger.global_ns() / kDelay, 5u);
}

TEST(DelayLedger, TakeOwedLeavesTheCarry) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays a, b;
  ledger.advance(a, 3 * ledger.delay_ns());
  EXPECT_EQ(ledger.take_owed(b, kDelay), 2 * kDelay);
  EXPECT_EQ(ledger.owed(b), kDelay) << "one delay left owed";
  EXPECT_EQ(ledger.take_owed(b, kDelay), 0u) << "nothing beyond the carry";
  EXPECT_EQ(ledger.take_owed(b), kDelay);
  EXPECT_EQ(ledger.owed(b), 0u);
}

TEST(DelayLedger, OtherThreadsPayTheDifference) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays a, b;
  EXPECT_EQ(ledger.advance(a, 4 * ledger.delay_ns()), 0u);
  EXPECT_EQ(ledger.advance(b, 1 * ledger.delay_ns()), 3 * kDelay)
      << "b ran the line once, a four times";
  EXPECT_EQ(ledger.advance(b, 0 * ledger.delay_ns()), 0u) << "paid up";
  EXPECT_EQ(ledger.take_owed(a), 0u);
  EXPECT_EQ(ledger.advance(b, 6 * ledger.delay_ns()), 0u) << "b is now ahead and raises the count";
  EXPECT_EQ(ledger.take_owed(a), 6 * kDelay) << "a owes b's six extra samples";
}

TEST(DelayLedger, CreditSkipsDelaysInsertedWhileBlocked) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays worker, sleeper;
  ledger.advance(worker, 10 * ledger.delay_ns());
  ledger.credit_to(sleeper, ledger.global_ns());  // woken by a thread that had paid everything
  EXPECT_EQ(ledger.take_owed(sleeper), 0u);
  ledger.advance(worker, 2 * ledger.delay_ns());
  EXPECT_EQ(ledger.take_owed(sleeper), 2 * kDelay);
}

TEST(DelayLedger, NewExperimentForgetsOldDebts) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays a, b;
  ledger.advance(a, 50 * ledger.delay_ns());
  ledger.end();
  EXPECT_EQ(ledger.take_owed(b), 0u) << "nothing is owed between experiments";
  ledger.begin(2 * kDelay);
  EXPECT_EQ(ledger.take_owed(b), 0u) << "the old experiment's debt is not paid at the new size";
  ledger.advance(a, 1 * ledger.delay_ns());
  EXPECT_EQ(ledger.take_owed(b), 2 * kDelay);
}

TEST(DelayLedger, OvershootIsTakenOffLaterPauses) {
  LocalDelays t;
  EXPECT_EQ(DelayLedger::pause_for(t, 1000), 1000u);
  DelayLedger::paused(t, 1000, 1300);  // slept 300 too long
  EXPECT_EQ(DelayLedger::pause_for(t, 200), 0u) << "covered by the overshoot";
  EXPECT_EQ(DelayLedger::pause_for(t, 1000), 900u) << "100 of overshoot left";
  DelayLedger::paused(t, 900, 900);
  EXPECT_EQ(DelayLedger::pause_for(t, 500), 500u);
}

// Random interleavings of samples, pauses and credits over several threads: once every thread
// has caught up, each thread's pauses + selected samples + credited delays equal the global count.
TEST(DelayLedger, InvariantHoldsUnderRandomInterleavings) {
  std::mt19937_64 random(2024);
  for (int trial = 0; trial < 200; trial++) {
    DelayLedger ledger;
    ledger.begin(kDelay);
    std::vector<SimThread> threads(1 + random() % 6);
    std::vector<uint64_t> credited(threads.size(), 0);
    for (int step = 0; step < 300; step++) {
      size_t i = random() % threads.size();
      SimThread& t = threads[i];
      switch (random() % 4) {
        case 0:
        case 1: {
          uint64_t n = random() % 4;
          t.selected += n;
          t.paused += ledger.advance(t.local, n * ledger.delay_ns()) / kDelay;
          break;
        }
        case 2:
          t.paused += ledger.take_owed(t.local) / kDelay;
          break;
        case 3: {
          uint64_t before = t.local.ns;
          ledger.credit_to(t.local, ledger.global_ns());
          credited[i] += (t.local.ns - before) / kDelay;
          break;
        }
      }
    }
    for (size_t i = 0; i < threads.size(); i++) {
      threads[i].paused += ledger.take_owed(threads[i].local) / kDelay;
      EXPECT_EQ(threads[i].paused + threads[i].selected + credited[i], ledger.global_ns() / kDelay)
          << "trial " << trial << " thread " << i;
    }
  }
}

// The same invariant with real threads racing on the global count.
TEST(DelayLedger, InvariantHoldsWithRealThreads) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  constexpr int kThreads = 4;
  std::vector<SimThread> threads(kThreads);
  std::vector<std::thread> workers;
  for (int i = 0; i < kThreads; i++) {
    workers.emplace_back([&ledger, &t = threads[i], i] {
      std::mt19937_64 random(i);
      for (int step = 0; step < 20000; step++) {
        uint64_t n = random() % 3;
        t.selected += n;
        t.paused += ledger.advance(t.local, n * ledger.delay_ns()) / kDelay;
      }
    });
  }
  for (auto& w : workers) {
    w.join();
  }
  for (SimThread& t : threads) {
    t.paused += ledger.take_owed(t.local) / kDelay;
    EXPECT_EQ(t.paused + t.selected, ledger.global_ns() / kDelay);
  }
}

TEST(DelayLedger, CreditNeverExceedsTheTimeBlocked) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays runner, sleeper;
  ledger.absorb(runner, 10 * kDelay);                // one lump of ten delays
  ledger.credit_to(sleeper, runner.ns, 3 * kDelay);  // but the sleeper waited only three
  EXPECT_EQ(sleeper.ns, 3 * kDelay);
  EXPECT_EQ(ledger.take_owed(sleeper), 7 * kDelay) << "the rest is paid";
  // A wait that spans an experiment boundary is capped in the new experiment's terms.
  LocalDelays waiter;
  ledger.credit_to(waiter, 0);
  ledger.end();
  ledger.begin(kDelay);
  ledger.absorb(runner, 5 * kDelay);
  ledger.credit_to(waiter, runner.ns, 2 * kDelay);
  EXPECT_EQ(waiter.ns, 2 * kDelay);
}

TEST(DelayLedger, AThreadNotSeenThisExperimentOwesItAll) {
  // owed() and take_owed() agree for a thread whose count is from an earlier experiment.
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays runner, idle;
  ledger.advance(idle, 0 * ledger.delay_ns());  // idle is seen in the first experiment only
  ledger.end();
  ledger.begin(kDelay);
  ledger.advance(runner, 4 * ledger.delay_ns());
  EXPECT_EQ(ledger.owed(idle), 4 * kDelay);
  EXPECT_EQ(ledger.take_owed(idle), 4 * kDelay);
}

TEST(DelayLedger, ArrivalSpeedupsShareTheLedgerWithLineSpeedups) {
  // A baseline experiment (0% line speedup) with load amplification still inserts delays.
  DelayLedger ledger;
  ledger.begin(0);
  EXPECT_TRUE(ledger.active());
  LocalDelays producer, consumer;
  EXPECT_EQ(ledger.advance(producer, 750000), 0u) << "an arrival thread never pauses for itself";
  EXPECT_EQ(ledger.advance(consumer, 0), 750000u) << "everyone else is delayed by the speedup";
  ledger.end();
  ledger.begin(0);
  EXPECT_TRUE(ledger.active()) << "a plain baseline keeps the same accounts";
  EXPECT_EQ(ledger.advance(producer, 0), 0u) << "but nobody owes anything";
  EXPECT_EQ(ledger.advance(consumer, 0), 0u);
}

}  // namespace
}  // namespace coz

namespace coz {
namespace {

TEST(DelayLedger, AbsorbRaisesTheCountWithoutPaying) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays a, b;
  ledger.absorb(a, 3 * kDelay);
  EXPECT_EQ(ledger.global_ns() / kDelay, 3u);
  ledger.absorb(b, 1 * kDelay);
  EXPECT_EQ(ledger.global_ns() / kDelay, 3u);
  EXPECT_EQ(b.ns, 1 * kDelay) << "b still owes two delays";
  EXPECT_EQ(ledger.take_owed(b), 2 * kDelay);
}

TEST(DelayLedger, CreditToTheWakersCountOnly) {
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays runner, waker, sleeper;
  ledger.absorb(runner, 10 * kDelay);
  ledger.absorb(waker, 0);  // the waker has taken none of its 10 owed delays
  ledger.credit_to(sleeper, waker.ns);
  EXPECT_EQ(ledger.take_owed(sleeper), 10 * kDelay) << "the sleeper pays what its waker had not";
  LocalDelays other;
  ledger.credit_to(other, 7 * kDelay);
  EXPECT_EQ(ledger.take_owed(other), 3 * kDelay);
  LocalDelays greedy;
  ledger.credit_to(greedy, 50 * kDelay);
  EXPECT_EQ(greedy.ns, 10 * kDelay) << "never credited beyond the global count";
}

TEST(DelayLedger, AWakeNeverForgivesWhatWasOwedBeforeBlocking) {
  // A consumer runs while the producer's line is sampled, then waits on a condition variable
  // holding the mutex (so it cannot pay): the producer's wake credits only what came after.
  DelayLedger ledger;
  ledger.begin(kDelay);
  LocalDelays producer, consumer;
  ledger.credit_to(consumer, 0);  // the consumer has seen this experiment
  ledger.absorb(producer, 4 * kDelay);
  uint64_t owed_at_block = ledger.owed(consumer);
  EXPECT_EQ(owed_at_block, 4 * kDelay);
  ledger.absorb(producer, 6 * kDelay);  // while the consumer is blocked
  ledger.credit_to(consumer, producer.ns, UINT64_MAX, owed_at_block);
  EXPECT_EQ(ledger.take_owed(consumer), 4 * kDelay)
      << "the debt run up while running is still paid";
  LocalDelays other;  // a thread that owed nothing when it blocked is credited in full
  ledger.credit_to(other, producer.ns, UINT64_MAX, 0);
  EXPECT_EQ(ledger.take_owed(other), 0u);
}

TEST(RecentLumps, OnlyLumpsOfTheExperimentAmongThoseAskedForAreLookedAt) {
  RecentLumps lumps;
  lumps.add(7, 4, 11, 9000, 10000);  // looked at before
  lumps.add(7, 5, 12, 9500, 10200);
  lumps.add(6, 4, 11, 9000, 10100);   // another experiment's
  lumps.add(7, 4, 11, 19000, 20000);  // not asked for yet
  std::vector<std::vector<uint64_t>> seen;
  auto look = [&](uint64_t from, uint64_t at, uint64_t periods, pid_t raiser) {
    seen.push_back({from, at, periods, static_cast<uint64_t>(raiser)});
  };
  lumps.for_each(7, 1, 3, look);
  EXPECT_EQ(seen, (std::vector<std::vector<uint64_t>>{{9500, 10200, 5, 12}}));
  EXPECT_EQ(lumps.added(), 4u);
  for (uint64_t i = 0; i < RecentLumps::kSlots; i++) {  // the oldest are written over
    lumps.add(7, 2, 13, 29000 + i, 30000 + i);
  }
  seen.clear();
  lumps.for_each(7, 0, 4, look);
  EXPECT_TRUE(seen.empty());
  lumps.for_each(7, 4, lumps.added(), look);
  EXPECT_EQ(seen.size(), RecentLumps::kSlots);
}

TEST(RecentWaits, BlockedTimeIsKeptPerBucketAndReadInProportion) {
  constexpr uint64_t kBucket = 250;
  RecentWaits waits;
  waits.add(1000, 1500, kBucket);  // two whole buckets
  waits.add(1600, 1700, kBucket);
  EXPECT_EQ(waits.blocked_between(0, 3000, kBucket), 600u);
  EXPECT_EQ(waits.blocked_between(1000, 1250, kBucket), 250u);
  EXPECT_EQ(waits.blocked_between(1500, 1750, kBucket), 100u) << "the bucket's blocked time";
  EXPECT_EQ(waits.blocked_between(1500, 1625, kBucket), 50u) << "half the bucket, half its time";
  EXPECT_EQ(waits.blocked_between(1500, 1500, kBucket), 0u);
  // 32 buckets on, the oldest are written over and count as not blocked.
  waits.add(1000 + 32 * kBucket, 1100 + 32 * kBucket, kBucket);
  EXPECT_EQ(waits.blocked_between(0, 3000, kBucket), 350u);
  // A wait longer than the buckets fills them all.
  waits.add(100000, 200000, kBucket);
  EXPECT_EQ(waits.blocked_between(0, 200000, kBucket), 32 * kBucket);
  waits.clear();
  EXPECT_EQ(waits.blocked_between(0, 200000, kBucket), 0u);
}

}  // namespace
}  // namespace coz
