// The experiment cycle: choose, run for the scheduler's length, end, cool off, choose again; a
// whole run never due; the length adapting to the visits each end reports.
#include "experiment/experiment_cycle.h"

#include <gtest/gtest.h>

namespace coz {
namespace {

using Phase = ExperimentCycle::Phase;

SchedulerSettings settings() {
  SchedulerSettings s;
  s.initial_length_ns = 1000;
  s.min_length_ns = 250;
  s.max_length_ns = 8000;
  s.cooloff_ns = 100;
  s.fixed_speedup = -1;
  return s;
}

TEST(ExperimentCycle, RunsEndsCoolsOffAndChoosesAgain) {
  ExperimentCycle cycle(settings(), 1);
  EXPECT_EQ(cycle.phase(0), Phase::kChoosing);
  EXPECT_EQ(cycle.left_ns(0), ExperimentCycle::kNever) << "only a line found moves it";
  int speedup = cycle.speedup();
  cycle.begin(10, false);
  EXPECT_GE(speedup, 0);
  EXPECT_LE(speedup, 100);
  EXPECT_EQ(cycle.phase(500), Phase::kRunning);
  EXPECT_EQ(cycle.left_ns(500), 510u);
  EXPECT_EQ(cycle.phase(1010), Phase::kEnding);
  EXPECT_EQ(cycle.phase(5000), Phase::kEnding) << "until the caller has collected it";
  cycle.end(5000, 50, 50);
  EXPECT_EQ(cycle.phase(5050), Phase::kCoolingOff);
  EXPECT_EQ(cycle.left_ns(5050), 50u);
  EXPECT_EQ(cycle.phase(5100), Phase::kChoosing);
  EXPECT_EQ(cycle.experiments(), 1u);
}

TEST(ExperimentCycle, TheLengthFollowsTheVisitsOfTheFewestVisitedPoint) {
  ExperimentCycle cycle(settings(), 1);
  cycle.begin(0, false);
  cycle.end(1000, 2, 2);  // too few to measure a rate: twice as long
  cycle.phase(2000);
  cycle.begin(2000, false);
  EXPECT_EQ(cycle.left_ns(2000), 2000u);
  cycle.end(4000, 1000, 1);  // plenty in all, but one point has 1: not shorter
  cycle.phase(5000);
  cycle.begin(5000, false);
  EXPECT_EQ(cycle.left_ns(5000), 2000u);
  cycle.end(7000, 1000, 500);  // every point plenty: half
  cycle.phase(8000);
  cycle.begin(8000, false);
  EXPECT_EQ(cycle.left_ns(8000), 1000u);
}

TEST(ExperimentCycle, AWholeRunIsNeverDueUntilEndedNow) {
  ExperimentCycle cycle(settings(), 1);
  EXPECT_EQ(cycle.speedup(40), 40) << "a speedup given is kept";
  cycle.begin(0, true);
  EXPECT_EQ(cycle.phase(UINT64_MAX - 1), Phase::kRunning);
  EXPECT_EQ(cycle.left_ns(123), ExperimentCycle::kNever);
  cycle.begin(0, false);
  cycle.end_now();
  EXPECT_EQ(cycle.phase(1), Phase::kEnding) << "a whole run asked for while one ran";
}

TEST(ExperimentCycle, ACutExperimentIsChosenAgainAtOnce) {
  ExperimentCycle cycle(settings(), 1);
  cycle.begin(0, false);
  cycle.cut();
  EXPECT_EQ(cycle.phase(1), Phase::kChoosing);
}

TEST(ExperimentCycle, TheSameSeedDrawsTheSameSpeedups) {
  ExperimentCycle a(settings(), 7), b(settings(), 7);
  for (int i = 0; i < 20; i++) {
    EXPECT_EQ(a.speedup(), b.speedup());
  }
}

}  // namespace
}  // namespace coz
