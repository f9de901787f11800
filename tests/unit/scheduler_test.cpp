// Experiment scheduling with a seeded random source: speedup distribution, the 0% share, fixed
// speedups, and the doubling rule.
#include "experiment/scheduler.h"

#include <gtest/gtest.h>

#include <map>

namespace coz {
namespace {

TEST(Scheduler, SpeedupsAreFivePercentStepsWithHalfBaselines) {
  Scheduler s(SchedulerSettings{});
  Random random(42);
  std::map<int, int> counts;
  constexpr int kDraws = 40000;
  for (int i = 0; i < kDraws; i++) {
    counts[s.draw_speedup(random)]++;
  }
  for (auto& [speedup, n] : counts) {
    EXPECT_EQ(speedup % 5, 0);
    EXPECT_GE(speedup, 0);
    EXPECT_LE(speedup, 100);
  }
  EXPECT_EQ(counts.size(), 21u) << "0, 5, ..., 100 all drawn";
  EXPECT_NEAR(counts[0] / double(kDraws), 0.5, 0.015);
  for (int speedup = 5; speedup <= 100; speedup += 5) {
    EXPECT_NEAR(counts[speedup] / double(kDraws), 0.5 / 20, 0.006) << speedup;
  }
}

TEST(Scheduler, ZeroShareIsConfigurable) {
  SchedulerSettings settings;
  settings.zero_speedup_share = 0.2;
  Scheduler s(settings);
  Random random(7);
  int zeros = 0;
  for (int i = 0; i < 20000; i++) {
    zeros += s.draw_speedup(random) == 0;
  }
  EXPECT_NEAR(zeros / 20000.0, 0.2, 0.015);
}

TEST(Scheduler, SpeedupStepSetsTheLevels) {
  SchedulerSettings settings;
  settings.speedup_step = 25;
  Scheduler s(settings);
  Random random(11);
  std::map<int, int> counts;
  for (int i = 0; i < 8000; i++) {
    counts[s.draw_speedup(random)]++;
  }
  ASSERT_EQ(counts.size(), 5u) << "0, 25, 50, 75, 100";
  for (int speedup = 25; speedup <= 100; speedup += 25) {
    EXPECT_NEAR(counts[speedup] / 8000.0, 0.5 / 4, 0.02) << speedup;
  }
}

TEST(Scheduler, DrawsAreRandomNotSystematic) {
  Scheduler s(SchedulerSettings{});
  Random a(1), b(2);
  std::vector<int> from_a, from_b;
  for (int i = 0; i < 50; i++) {
    from_a.push_back(s.draw_speedup(a));
    from_b.push_back(s.draw_speedup(b));
  }
  EXPECT_NE(from_a, from_b);
  // No monotone sweep: the non-zero draws go both up and down.
  int ups = 0, downs = 0;
  for (size_t i = 1; i < from_a.size(); i++) {
    ups += from_a[i] > from_a[i - 1];
    downs += from_a[i] < from_a[i - 1];
  }
  EXPECT_GT(ups, 5);
  EXPECT_GT(downs, 5);
}

TEST(Scheduler, FixedSpeedupIsAlwaysUsed) {
  SchedulerSettings settings;
  settings.fixed_speedup = 35;
  Scheduler s(settings);
  Random random(3);
  for (int i = 0; i < 100; i++) {
    EXPECT_EQ(s.draw_speedup(random), 35);
  }
  settings.fixed_speedup = 0;
  Scheduler zero(settings);
  EXPECT_EQ(zero.draw_speedup(random), 0);
}

TEST(Scheduler, LengthDoublesWhileTooFewVisits) {
  SchedulerSettings settings;
  settings.initial_length_ns = 500;
  settings.max_length_ns = 3000;
  Scheduler s(settings);
  EXPECT_EQ(s.length_ns(), 500u);
  s.finished(4, 4);
  EXPECT_EQ(s.length_ns(), 1000u);
  s.finished(0, 0);
  EXPECT_EQ(s.length_ns(), 2000u);
  s.finished(5, 5);
  EXPECT_EQ(s.length_ns(), 2000u) << "enough visits: keep the length";
  s.finished(1, 1);
  EXPECT_EQ(s.length_ns(), 3000u) << "capped";
}

TEST(Scheduler, LengthHalvesWhileVisitsArePlentiful) {
  SchedulerSettings settings;
  settings.initial_length_ns = 800;
  settings.min_length_ns = 200;
  settings.plenty_visits = 100;
  Scheduler s(settings);
  s.finished(101, 101);
  EXPECT_EQ(s.length_ns(), 400u);
  s.finished(100, 100);
  EXPECT_EQ(s.length_ns(), 400u) << "enough, not plenty: keep the length";
  s.finished(5000, 5000);
  EXPECT_EQ(s.length_ns(), 200u);
  s.finished(5000, 5000);
  EXPECT_EQ(s.length_ns(), 200u) << "never below the minimum";
  s.finished(2, 2);
  EXPECT_EQ(s.length_ns(), 400u) << "and back up when visits get rare";
  // A first length below the minimum (--experiment-length 50ms) is kept as the floor.
  settings.initial_length_ns = 50;
  Scheduler short_first(settings);
  short_first.finished(5000, 5000);
  EXPECT_EQ(short_first.length_ns(), 50u);
}

}  // namespace
}  // namespace coz
