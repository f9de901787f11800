// Little's law inputs: requests in flight integrated over effective time give the mean latency
// for any experiment length; END counted before its BEGIN never underflows.
#include "experiment/in_flight.h"

#include <gtest/gtest.h>

namespace coz {
namespace {

TEST(InFlight, NeverNegative) {
  EXPECT_EQ(InFlight::count(5, 3), 2u);
  EXPECT_EQ(InFlight::count(3, 5), 0u) << "an END seen before its BEGIN";
  InFlight f;
  f.add(3, 5, 1000);
  EXPECT_EQ(f.integral_ns(), 0u);
}

TEST(InFlight, LittlesLawOnAKnownSchedule) {
  // Requests arrive every 10 us and each takes 25 us: after warm-up 2.5 are in flight on
  // average, the arrival rate is 0.1 per us, so W = 2.5 / 0.1 = 25 us. Sample every 1 us.
  InFlight f;
  uint64_t begun = 0, ended = 0, arrivals = 0;
  for (uint64_t t = 0; t < 100000; t++) {  // microseconds
    if (t % 10 == 0) {
      begun++;
      arrivals++;
    }
    if (t >= 25 && (t - 25) % 10 == 0) {
      ended++;
    }
    f.add(begun, ended, 1000.0);
  }
  EXPECT_NEAR(InFlight::mean_latency_ns(f.integral_ns(), arrivals), 25000.0, 100.0);
}

TEST(InFlight, EffectiveTimeNotRealTime) {
  // Two requests in flight for 10 ms of real time during which 4 ms of delay were inserted:
  // each spent 6 ms in the sped-up program.
  InFlight f;
  f.add(2, 0, 10e6);
  f.remove(2 * 4e6);
  EXPECT_EQ(f.integral_ns(), 12000000u);
  EXPECT_DOUBLE_EQ(InFlight::mean_latency_ns(f.integral_ns(), 2), 6e6);
  EXPECT_EQ(InFlight::mean_latency_ns(123, 0), 0.0);
}

}  // namespace
}  // namespace coz
