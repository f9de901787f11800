// Load amplification arithmetic with a fake clock (eq. 6.1-6.2): a fixed speedup per arrival,
// and a load factor turned into a speedup from the thread's own measured inter-arrival period.
#include "experiment/arrival_pacer.h"

#include <gtest/gtest.h>

namespace coz {
namespace {

constexpr uint64_t kMs = 1000000;

TEST(ArrivalPacer, FixedSpeedupPerArrival) {
  AmplifySettings s;
  s.arrival_speedup_ns = 250000;
  ArrivalPacer p;
  EXPECT_EQ(p.on_arrivals(s, 4, 10 * kMs, 0), 0u) << "arrivals before the first look earn nothing";
  EXPECT_EQ(p.on_arrivals(s, 4, 11 * kMs, 0), 0u) << "no new arrivals, no speedup";
  EXPECT_EQ(p.on_arrivals(s, 10, 16 * kMs, 0), 6 * 250000u);
  EXPECT_EQ(p.period_ns(), kMs) << "six arrivals in 6 ms since the first look";
}

TEST(ArrivalPacer, LoadFactorUsesTheMeasuredPeriod) {
  AmplifySettings s;
  s.load = 4;
  ArrivalPacer p;
  EXPECT_EQ(p.on_arrivals(s, 1, 0, 0), 0u) << "no period known yet";
  // One arrival per millisecond: 4x load needs each arrival 750 us sooner.
  EXPECT_EQ(p.on_arrivals(s, 11, 10 * kMs, 0), 10 * 750000u);
  EXPECT_EQ(p.period_ns(), kMs);
  // Effective period = period - speedup = period / load.
  EXPECT_EQ(p.period_ns() - 750000u, p.period_ns() / 4);
}

TEST(ArrivalPacer, PausesAndBlockingAreNotPartOfThePeriod) {
  AmplifySettings s;
  s.load = 2;
  ArrivalPacer p;
  p.on_arrivals(s, 1, 0, 0);
  // 10 arrivals over 30 ms of which 20 ms were spent paused or blocked: own period 1 ms.
  EXPECT_EQ(p.on_arrivals(s, 11, 30 * kMs, 20 * kMs), 10 * 500000u);
  EXPECT_EQ(p.period_ns(), kMs);
}

TEST(ArrivalPacer, SpeedupNeverReachesThePeriod) {
  AmplifySettings s;
  s.arrival_speedup_ns = 5 * kMs;  // more than the 1 ms period
  ArrivalPacer p;
  p.on_arrivals(s, 1, 0, 0);
  EXPECT_EQ(p.on_arrivals(s, 2, kMs, 0), kMs / 100 * 99) << "capped at 99% of the period";
}

TEST(ArrivalPacer, ResetForgetsTheOldThread) {
  AmplifySettings s;
  s.load = 2;
  ArrivalPacer p;
  p.on_arrivals(s, 1, 0, 0);
  p.on_arrivals(s, 3, 2 * kMs, 0);
  p.reset();
  EXPECT_EQ(p.period_ns(), 0u);
  EXPECT_EQ(p.on_arrivals(s, 1, 50 * kMs, 0), 0u);
}

TEST(AmplifySettings, OnlyAboveLoadOne) {
  AmplifySettings s;
  EXPECT_FALSE(s.on());
  s.load = 1;
  EXPECT_FALSE(s.on()) << "load 1 is the program's own load";
  s.load = 1.5;
  EXPECT_TRUE(s.on());
}

}  // namespace
}  // namespace coz
