// Which delays an experiment takes off its time (experiment/progress_delays.h), and each thread's
// part as the runtime reads it (threads/progress_threads.h).
#include "experiment/progress_delays.h"

#include <gtest/gtest.h>

#include "experiment/experiment_result.h"
#include "threads/progress_threads.h"

namespace coz {
namespace {

TEST(ProgressDelays, AThreadThatCouldNotKeepUpIsTimedByWhatItTook) {
  // A background line sped up 90%: the global total rose to 400 ms of a 500 ms experiment, and the
  // thread that made every visit paused for 300 ms of it before the experiment ended.
  TakenDelays d = delays_taken(400000000, 1000, {{1000, 300000000}});
  EXPECT_EQ(d.taken_ns, 300000000u);
  EXPECT_EQ(d.owed_ns, 100000000u);
}

TEST(ProgressDelays, VisitsWeighEachThreadsDelays) {
  // Two threads make 3 and 1 visits: the experiment's delays are 3/4 of the first's and 1/4 of
  // the second's.
  TakenDelays d = delays_taken(100, 4, {{3, 80}, {1, 40}});
  EXPECT_EQ(d.taken_ns, 70u);
  EXPECT_EQ(d.owed_ns, 30u);
}

TEST(ProgressDelays, VisitsNoThreadCountedKeepTheGlobalTotal) {
  // A program built with Coz's own header (no per-thread counts), another process of the run, or
  // no visits at all: as before, the global total.
  EXPECT_EQ(delays_taken(100, 50, {}).taken_ns, 100u);
  EXPECT_EQ(delays_taken(100, 0, {}).taken_ns, 100u);
  // Half the visits are a thread's own, half nobody's.
  EXPECT_EQ(delays_taken(100, 20, {{10, 60}}).taken_ns, 80u);
  // The threads' counts, read a moment after the points', may be a few ahead.
  EXPECT_EQ(delays_taken(100, 9, {{10, 60}}).taken_ns, 60u);
}

TEST(ProgressDelays, NoThreadTakesMoreThanTheGlobalTotal) {
  TakenDelays d = delays_taken(100, 2, {{2, 150}});
  EXPECT_EQ(d.taken_ns, 100u);
  EXPECT_EQ(d.owed_ns, 0u);
}

TEST(ProgressDelays, TheExperimentsDurationSubtractsOnlyWhatWasTaken) {
  ExperimentInput in;
  in.speedup = 90;
  in.delay_ns = 900000;
  in.elapsed_ns = 500000000;
  in.inserted_ns = 400000000;
  PointInput point{"item", false, false, {}, {}, {}};
  point.after.throughput = 1000;
  in.points = {point};
  in.progress_threads = {{1000, 300000000}};
  ExperimentResult r = compute_experiment_result(in);
  EXPECT_EQ(r.duration_ns, 200000000u);
  EXPECT_EQ(r.owed_ns, 100000000u);
  EXPECT_EQ(r.inserted_ns, 400000000u) << "the global total is still recorded as inserted";
  in.progress_threads.clear();
  EXPECT_EQ(compute_experiment_result(in).duration_ns, 100000000u) << "nobody counted: global";
}

TEST(ProgressDelays, RequestsInFlightLoseOnlyTheShareTaken) {
  ExperimentInput in;
  in.elapsed_ns = 1000000;
  in.inserted_ns = 400;
  PointInput lat{"req", true, false, {}, {}, {}};
  lat.before = {0, 0, 0, 0, 0};
  lat.after = {0, 5, 5, 0, 4000};  // 4000 request-ns of delay inserted while in flight
  lat.in_flight.add(3, 0, 1e6);
  in.points = {lat};
  in.progress_threads = {{10, 100}};  // the threads that began and ended them took a quarter
  EXPECT_EQ(compute_experiment_result(in).points[0].in_flight_ns, 3000000u - 1000u);
}

class ProgressThreadTest : public ::testing::Test {
 protected:
  ThreadState t;
  static constexpr uint64_t kEpoch = 7;
  static constexpr uint64_t kNow = 1000000000;
  void SetUp() override {
    t.visits.count = 50;
    t.visits_base = 20;
    t.visits_base_epoch = kEpoch;
    t.delays.epoch = kEpoch;
    t.delays.ns = 300;
  }
};

TEST_F(ProgressThreadTest, ItsVisitsSinceTheExperimentBeganWithItsLocalTotal) {
  ProgressThread p = ProgressThreads::part_of(t, kEpoch, 1000, kNow);
  EXPECT_EQ(p.visits, 30u);
  EXPECT_EQ(p.taken_ns, 300u);
  t.visits_base_epoch = kVisitsSinceAttach;  // attached since it began, to a recycled state
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).visits, 30u);
  t.visits_base_epoch = kEpoch - 1;  // a base from an earlier experiment: every visit counts
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).visits, 50u);
  t.delays.epoch = kEpoch - 1;  // not seen since it began: it took none of it
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).taken_ns, 0u);
}

TEST_F(ProgressThreadTest, BlockedInAWaitAWakeCreditsItCountsAsCredited) {
  t.blocked_now.store(true);
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).taken_ns, 1000u);
  t.block_epoch = kEpoch;
  t.block_debt_ns = 200;  // owed going in (holding a lock): no wake forgives it
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).taken_ns, 800u);
}

TEST_F(ProgressThreadTest, APauseCountsAsFarAsItFallsInTheExperiment) {
  t.pause_end_ns.store(kNow + 120);  // 120 ns of its pause still to come: not yet paused
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).taken_ns, 180u);
  t.pause_end_ns.store(0);
  t.pause_spill_ns = 50;  // the rest of an earlier experiment's pause, in this one
  EXPECT_EQ(ProgressThreads::part_of(t, kEpoch, 1000, kNow).taken_ns, 350u);
}

}  // namespace
}  // namespace coz
