// Statistics for causal profiles: slope, Coz's impact measure, interpolation, percentile
// intervals and Benjamini-Hochberg.
#include "analysis/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace coz::analysis {
namespace {

TEST(Statistics, SlopeThroughTheOrigin) {
  EXPECT_DOUBLE_EQ(slope_through_origin({{0, 0}, {0.5, 0.25}, {1, 0.5}}), 0.5);
  EXPECT_DOUBLE_EQ(slope_through_origin({{0, 0}}), 0);
  // Least squares: sum(xy) / sum(xx) = (0.5*0.3 + 1*0.4) / 1.25.
  EXPECT_NEAR(slope_through_origin({{0.5, 0.3}, {1, 0.4}}), 0.44, 1e-12);
}

TEST(Statistics, FittedCurveThroughTheOrigin) {
  // Exact points of 0.8 x - 0.4 x^2 (a line that stops mattering) give back a and b.
  std::vector<XY> points = {{0, 0}};
  for (double x : {0.2, 0.4, 0.6, 1.0}) {
    points.push_back({x, 0.8 * x - 0.4 * x * x});
  }
  CurveFit fit = fit_curve(points, {3, 1, 2, 1, 4});
  EXPECT_NEAR(fit.a, 0.8, 1e-9);
  EXPECT_NEAR(fit.b, -0.4, 1e-9);
  EXPECT_NEAR(fit.at(0.5), 0.3, 1e-9);
  // One noisy point among many: weights pull the fit toward the better-measured points.
  CurveFit heavy = fit_curve({{0, 0}, {0.5, 0.25}, {1, 0.5}, {0.75, 0.9}}, {1, 10, 10, 1});
  CurveFit light = fit_curve({{0, 0}, {0.5, 0.25}, {1, 0.5}, {0.75, 0.9}}, {1, 1, 1, 10});
  EXPECT_LT(std::fabs(heavy.at(0.75) - 0.375), std::fabs(light.at(0.75) - 0.375));
  // A single speedup: the straight line through it.
  CurveFit line = fit_curve({{0, 0}, {0.5, 0.2}}, {4, 2});
  EXPECT_NEAR(line.a, 0.4, 1e-12);
  EXPECT_EQ(line.b, 0);
  EXPECT_EQ(fit_curve({{0, 0}}, {1}).at(1), 0);
}

TEST(Statistics, ImpactIsTheMeanOverTheMeasuredRange) {
  // Linear: the mean of k x over [0, 1] is k / 2.
  EXPECT_NEAR(impact({{0, 0}, {0.5, 0.25}, {1, 0.5}}), 0.25, 1e-12);
  // Saturating at 0.2 from x = 0.2 on: the area over [0, 1] is 0.02 + 0.16.
  EXPECT_NEAR(impact({{0, 0}, {0.2, 0.2}, {1, 0.2}}), 0.18, 1e-12);
  // Measured up to 0.5 only: the mean over [0, 0.5].
  EXPECT_NEAR(impact({{0, 0}, {0.5, 0.3}}), 0.15, 1e-12);
  // Contention: negative everywhere, so the impact is negative too (it ranks last).
  EXPECT_LT(impact({{0, 0}, {0.5, -0.1}, {1, -0.2}}), 0);
  EXPECT_EQ(impact({{0, 0}}), 0);
}

TEST(Statistics, InterpolatesInsideTheMeasuredRangeOnly) {
  std::vector<XY> c = {{0, 0}, {0.2, 0.1}, {0.6, 0.3}};
  double y;
  ASSERT_TRUE(interpolate(c, 0.2, &y));
  EXPECT_DOUBLE_EQ(y, 0.1);
  ASSERT_TRUE(interpolate(c, 0.4, &y));
  EXPECT_NEAR(y, 0.2, 1e-12);
  EXPECT_FALSE(interpolate(c, 1.0, &y));
}

TEST(Statistics, PercentileInterval) {
  std::vector<double> v;
  for (int i = 100; i >= 0; i--) {
    v.push_back(i);
  }
  Interval in = percentile_interval(&v, 0.9);
  EXPECT_NEAR(in.low, 5, 1e-9);
  EXPECT_NEAR(in.high, 95, 1e-9);
}

// Selection gives what sorting and interpolating give, ties, NaNs and small sizes included.
TEST(Statistics, PercentileIntervalIsTheSortedQuantiles) {
  Rng rng(11);
  for (size_t n : {1, 2, 3, 7, 40, 1001}) {
    for (double confidence : {0.0, 0.5, 0.9, 0.95, 1.0}) {
      std::vector<double> v;
      for (size_t i = 0; i < n; i++) {
        v.push_back(static_cast<double>(rng.next() % 50) / 7);  // ties
      }
      v.push_back(NAN);
      std::vector<double> sorted(v.begin(), v.end() - 1);
      std::sort(sorted.begin(), sorted.end());
      auto quantile = [&](double q) {
        double pos = q * static_cast<double>(sorted.size() - 1);
        size_t lo = static_cast<size_t>(std::floor(pos)), hi = std::min(lo + 1, sorted.size() - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
      };
      Interval in = percentile_interval(&v, confidence);
      double tail = (1 - confidence) / 2;
      EXPECT_DOUBLE_EQ(in.low, quantile(tail)) << n << " values at " << confidence;
      EXPECT_DOUBLE_EQ(in.high, quantile(1 - tail)) << n << " values at " << confidence;
    }
  }
}

TEST(Statistics, TailQuantilesOfManyValuesEqualTheSortedOnes) {
  // Thousands of values: the tails are found among those past a sampled threshold, or among all
  // when the sample misleads (values in ascending or descending order put the extremes in it).
  Rng rng(5);
  for (int shape = 0; shape < 4; shape++) {
    std::vector<double> v;
    for (size_t i = 0; i < 4000; i++) {
      v.push_back(shape == 3 ? static_cast<double>(rng.next() % 3) : rng.uniform() - 0.5);
    }
    if (shape == 1) {
      std::sort(v.begin(), v.end());
    } else if (shape == 2) {
      std::sort(v.rbegin(), v.rend());
    }
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (double confidence : {0.5, 0.9, 0.95, 0.99, 0.999}) {
      std::vector<double> copy = v;
      Interval in = percentile_interval(&copy, confidence);
      double pos = (1 - confidence) / 2 * 3999, up = (1 + confidence) / 2 * 3999;
      size_t lo = static_cast<size_t>(pos), hi = static_cast<size_t>(up);
      EXPECT_EQ(in.low, sorted[lo] + (sorted[lo + 1] - sorted[lo]) * (pos - lo)) << shape;
      EXPECT_EQ(in.high, sorted[hi] + (sorted[hi + 1] - sorted[hi]) * (up - hi)) << shape;
    }
  }
}

TEST(Statistics, RemaindersByMultiplicationEqualDivisions) {
  Rng rng(9);
  std::vector<uint64_t> divisors = {
      1, 2, 3, 7, 10, 1000, 1u << 20, 999983, (uint64_t{1} << 63) + 5, ~uint64_t{0}};
  for (int i = 0; i < 50; i++) {
    divisors.push_back(rng.next() >> (rng.next() % 64));
  }
  for (uint64_t d : divisors) {
    if (d == 0) {
      continue;
    }
    FixedModulus m(d);
    for (uint64_t n : {uint64_t{0}, uint64_t{1}, d - 1, d, d + 1, ~uint64_t{0}, ~uint64_t{0} - 1}) {
      EXPECT_EQ(m.of(n), n % d) << n << " mod " << d;
    }
    for (int k = 0; k < 2000; k++) {
      uint64_t n = rng.next();
      ASSERT_EQ(m.of(n), n % d) << n << " mod " << d;
    }
  }
}

TEST(Statistics, ShufflesAndSkipsDrawWhatOneStreamWould) {
  for (size_t n : {0, 1, 2, 3, 50, 1000}) {
    std::vector<size_t> a(n), b(n);
    for (size_t i = 0; i < n; i++) {
      a[i] = b[i] = i;
    }
    Rng one(3), other(3);
    Shuffler shuffler(n);
    for (int round = 0; round < 3; round++) {
      for (size_t k = n > 0 ? n - 1 : 0; k > 0; k--) {
        std::swap(a[k], a[one.below(k + 1)]);
      }
      shuffler.shuffle(&b, &other);
      EXPECT_EQ(a, b) << n;
    }
    EXPECT_EQ(one.next(), other.next());
  }
  Rng walked(77), skipped(77);
  for (int i = 0; i < 12345; i++) {
    walked.next();
  }
  skipped.skip(12345);
  EXPECT_EQ(walked.next(), skipped.next());
}

TEST(Statistics, BenjaminiHochbergStepUp) {
  // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. The third-smallest p (0.025)
  // passes its threshold, so the three smallest are rejected even though 0.021 > 0.02.
  std::vector<bool> r = benjamini_hochberg({0.5, 0.001, 0.025, 0.021, 0.2}, 0.05);
  EXPECT_EQ(r, (std::vector<bool>{false, true, true, true, false}));
  EXPECT_EQ(benjamini_hochberg({0.2, 0.3}, 0.05), (std::vector<bool>{false, false}));
  EXPECT_TRUE(benjamini_hochberg({}, 0.05).empty());
}

TEST(Statistics, RngIsTheSameStreamForTheSameSeed) {
  Rng a(42), b(42), c(43);
  uint64_t x = a.next();
  EXPECT_EQ(x, b.next());
  EXPECT_NE(x, c.next());
  for (int i = 0; i < 1000; i++) {
    EXPECT_LT(a.below(7), 7u);
    double u = a.uniform();
    EXPECT_GE(u, 0);
    EXPECT_LT(u, 1);
  }
}

}  // namespace
}  // namespace coz::analysis
