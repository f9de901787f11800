// The runtime's own ln, e^x - 1 and square root (base/plain_math.h) against libm's.
#include "base/plain_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace coz {
namespace {

// Relative error, or absolute where the value is near 0.
double error(double got, double want) {
  return std::fabs(got - want) / (std::fabs(want) > 1e-300 ? std::fabs(want) : 1.0);
}

TEST(PlainMath, LnMatchesLibmFromTheSmallestDrawToLargeNumbers) {
  for (double x = 1.0 / 9007199254740992.0; x < 1e12; x *= 1.37) {
    EXPECT_LT(error(plain_math::ln(x), std::log(x)), 1e-14) << x;
  }
  EXPECT_LT(std::fabs(plain_math::ln(1.0)), 1e-300);
}

TEST(PlainMath, ExpMinusOneMatchesLibmNearZeroAndFarFromIt) {
  for (double x = -700; x < 700; x += 0.731) {
    EXPECT_LT(error(plain_math::exp_minus_one(x), std::expm1(x)), 1e-13) << x;
  }
  // A wait of thousands of sampling periods (speedup_ns asks for e^-x - 1 then).
  for (double x : {-708.0, -710.0, -1e4, -1e9, -1e300}) {
    EXPECT_EQ(plain_math::exp_minus_one(x), std::expm1(x)) << x;
  }
  EXPECT_TRUE(std::isinf(plain_math::exp_minus_one(710)));
  for (double x = 1e-12; x < 1; x *= 3.1) {
    EXPECT_LT(error(plain_math::exp_minus_one(-x), std::expm1(-x)), 1e-14) << x;
    EXPECT_LT(error(plain_math::exp_minus_one(x), std::expm1(x)), 1e-14) << x;
  }
}

TEST(PlainMath, SquareRootMatchesLibm) {
  for (double x = 1e-20; x < 1e20; x *= 1.9) {
    EXPECT_LT(error(plain_math::square_root(x), std::sqrt(x)), 1e-15) << x;
  }
  EXPECT_EQ(plain_math::square_root(0), 0);
}

}  // namespace
}  // namespace coz
