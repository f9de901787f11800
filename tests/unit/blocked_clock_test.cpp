// BlockedClock: blocked samples at the sampling period's rate, unbiased per line whatever the
// program's rhythm, and a selected wait's speedup worth waited x speedup on average.
#include "sample/blocked_clock.h"

#include <gtest/gtest.h>

namespace coz {
namespace {

constexpr uint64_t kPeriod = 1000000;  // 1 ms

TEST(BlockedClock, OneSamplePerPeriodOfWaiting) {
  BlockedClock clock(7);
  uint64_t samples = 0;
  for (int i = 0; i < 20000; i++) {
    samples += clock.on_wait(250000, kPeriod);  // 5 s of 250 us waits
  }
  EXPECT_NEAR(static_cast<double>(samples), 5000.0, 250.0);
}

TEST(BlockedClock, LongWaitHoldsSeveral) {
  BlockedClock clock(3);
  uint64_t samples = 0;
  for (int i = 0; i < 100; i++) {
    samples += clock.on_wait(50 * kPeriod, kPeriod);
  }
  EXPECT_NEAR(static_cast<double>(samples), 5000.0, 250.0);
}

TEST(BlockedClock, VeryLongWaitsAreDrawnAtOnce) {
  // An hour-long wait at 1 ms: about 3.6 million samples, drawn in constant time (a loop per
  // period would take seconds), within a few standard deviations (sqrt(3.6e6) = 1900).
  BlockedClock clock(5);
  uint64_t hour = 3600ull * 1000 * kPeriod;
  uint64_t total = 0;
  for (int i = 0; i < 50; i++) {
    total += clock.on_wait(hour, kPeriod);
  }
  EXPECT_NEAR(static_cast<double>(total) / 50, 3.6e6, 2000.0);
  // Just past the threshold, the mean still holds.
  BlockedClock near(9);
  uint64_t samples = 0;
  for (int i = 0; i < 2000; i++) {
    samples += near.on_wait(70 * kPeriod, kPeriod);
  }
  EXPECT_NEAR(static_cast<double>(samples) / 2000, 70.0, 1.0);
}

TEST(BlockedClock, NoAliasingWithTheProgramsRhythm) {
  // A 0.9 ms wait then a 0.1 ms wait, in turn: a fixed gap of one period would put every sample
  // on the second; an exponential gap splits them 9 to 1.
  BlockedClock clock(11);
  uint64_t long_waits = 0, short_waits = 0;
  for (int i = 0; i < 20000; i++) {
    long_waits += clock.on_wait(900000, kPeriod);
    short_waits += clock.on_wait(100000, kPeriod);
  }
  EXPECT_NEAR(static_cast<double>(long_waits), 18000.0, 600.0);
  EXPECT_NEAR(static_cast<double>(short_waits), 2000.0, 250.0);
}

TEST(BlockedClock, SelectedWaitsEarnWaitedTimesSpeedup) {
  // Only waits holding a sample are credited; each earns more the less likely that was.
  const uint64_t delay = kPeriod / 2;  // a 50% speedup
  for (uint64_t waited : {20000ull, 300000ull, 1000000ull, 7000000ull}) {
    BlockedClock clock(waited);
    double earned = 0;
    const int n = 40000;
    for (int i = 0; i < n; i++) {
      if (clock.on_wait(waited, kPeriod) > 0) {
        earned += static_cast<double>(BlockedClock::speedup_ns(waited, kPeriod, delay));
      }
    }
    double expected = 0.5 * static_cast<double>(waited) * n;
    EXPECT_NEAR(earned / expected, 1.0, 0.05) << waited << " ns waits";
  }
  // Much longer than the period: waited x speedup itself.
  EXPECT_NEAR(static_cast<double>(BlockedClock::speedup_ns(50 * kPeriod, kPeriod, delay)),
              25.0 * kPeriod, 1.0);
  EXPECT_EQ(BlockedClock::speedup_ns(kPeriod, kPeriod, 0), 0u);
}

}  // namespace
}  // namespace coz
