// coz compare's statistics (analysis/comparison.h, analysis/student_t.h), its layouts
// (layout/layout_shift.h) and its line matching (commands/compare_prediction.h).
#include "analysis/comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "analysis/statistics.h"
#include "analysis/student_t.h"
#include "commands/compare_prediction.h"
#include "layout/layout_shift.h"

namespace coz::analysis {
namespace {

TEST(StudentT, MatchesTablesAndItsOwnQuantiles) {
  EXPECT_DOUBLE_EQ(student_t_cdf(0, 5), 0.5);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.2281, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.6041, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.95996, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.025, 10), -2.2281, 1e-4);
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.995), 2.575829, 1e-6);
  EXPECT_NEAR(normal_quantile(0.5), 0, 1e-9);
  for (double df : {1.0, 3.0, 9.0, 40.0}) {
    for (double p : {0.01, 0.2, 0.5, 0.9, 0.999}) {
      EXPECT_NEAR(student_t_cdf(student_t_quantile(p, df), df), p, 1e-9);
    }
  }
}

// A normal draw from the seeded stream (Box-Muller).
double normal(Rng* rng) {
  double u = rng->uniform(), v = rng->uniform();
  return std::sqrt(-2 * std::log(u > 0 ? u : 1e-300)) * std::cos(2 * M_PI * v);
}

// Runs of both programs at `layouts` layouts, `repeats` each: the new build's time per item is
// (1 - speedup) of the old's; each program at each layout takes a factor exp(layout_sd * z)
// (its own: layouts interact with the code), each run exp(noise_sd * z) more.
std::vector<ComparedRun> simulate(double speedup, size_t layouts, size_t repeats, double layout_sd,
                                  double noise_sd, uint64_t seed) {
  Rng rng(seed);
  std::vector<ComparedRun> runs;
  for (size_t l = 0; l < layouts; l++) {
    double at_layout[2] = {std::exp(layout_sd * normal(&rng)), std::exp(layout_sd * normal(&rng))};
    for (size_t r = 0; r < repeats; r++) {
      for (int p = 0; p < 2; p++) {
        double seconds =
            (p == 0 ? 1.0 : 1 - speedup) * at_layout[p] * std::exp(noise_sd * normal(&rng));
        runs.push_back({p, l, seconds, {{"item", 1000}}, {}});
      }
    }
  }
  return runs;
}

TEST(Comparison, FindsAKnownSpeedupInWallTimeAndAtEachPoint) {
  Comparison c = compare_runs(simulate(0.25, 10, 2, 0.01, 0.01, 7), {0.99, 0.01});
  ASSERT_EQ(c.metrics.size(), 2u);
  EXPECT_TRUE(c.metrics[0].wall_time);
  EXPECT_EQ(c.metrics[1].name, "item");
  for (const MetricComparison& m : c.metrics) {
    EXPECT_EQ(m.verdict, Verdict::kFaster);
    EXPECT_NEAR(m.speedup, 0.25, 0.02);
    EXPECT_LT(m.low, 0.25);
    EXPECT_GT(m.high, 0.25);
    EXPECT_NEAR(m.ratio, 1 / 0.75, 0.04);
    EXPECT_LT(m.p_value, 0.001);
    EXPECT_EQ(m.layouts, 10u);
  }
  EXPECT_NEAR(c.metrics[0].old_value, 1.0, 0.02);
  EXPECT_NEAR(c.metrics[1].old_value, 1000, 20);
}

TEST(Comparison, ASlowerBuildIsSlower) {
  Comparison c = compare_runs(simulate(-0.1, 8, 2, 0.01, 0.01, 3), {0.99, 0.01});
  EXPECT_EQ(c.metrics[0].verdict, Verdict::kSlower);
  EXPECT_LT(c.metrics[0].high, 0);
}

TEST(Comparison, IntervalsCoverTheTruthAtTheirRate) {
  // 400 comparisons of 6 layouts with large layout effects: the 95% interval covers the true
  // speedup in about 95% of them, and a zero difference is called one in about 5%.
  size_t covered = 0, false_alarms = 0;
  const size_t kTrials = 400;
  for (uint64_t seed = 1; seed <= kTrials; seed++) {
    Comparison known = compare_runs(simulate(0.1, 6, 2, 0.04, 0.02, seed), {0.95, 0.01});
    covered += known.metrics[0].low <= 0.1 && 0.1 <= known.metrics[0].high;
    Comparison zero = compare_runs(simulate(0, 6, 2, 0.04, 0.02, seed + 100000), {0.95, 0.01});
    false_alarms += zero.metrics[0].verdict != Verdict::kNoDifference;
  }
  EXPECT_GE(covered, kTrials * 90 / 100);
  EXPECT_LE(covered, kTrials * 99 / 100);
  EXPECT_LE(false_alarms, kTrials * 10 / 100);
}

TEST(Comparison, SplitsTheSpreadIntoLayoutsAndRuns) {
  Comparison c = compare_runs(simulate(0, 200, 3, 0.05, 0.01, 11), {0.99, 0.01});
  const MetricComparison& m = c.metrics[0];
  EXPECT_NEAR(m.layout_spread, 0.05, 0.01);
  EXPECT_NEAR(m.run_spread, 0.01, 0.002);
  EXPECT_NEAR(m.total_spread, std::sqrt(0.05 * 0.05 + 0.01 * 0.01), 0.01);
  // One run per layout: no split.
  Comparison once = compare_runs(simulate(0, 20, 1, 0.05, 0.01, 11), {0.99, 0.01});
  EXPECT_LT(once.metrics[0].layout_spread, 0);
  EXPECT_GT(once.metrics[0].total_spread, 0);
}

TEST(Comparison, SaysHowManyLayoutsANarrowIntervalNeeds) {
  Comparison wide = compare_runs(simulate(0.1, 5, 2, 0.05, 0.01, 5), {0.99, 0.01});
  size_t needed = wide.metrics[0].layouts_needed;
  EXPECT_GT(needed, 5u);
  // With that many, the interval is about that narrow.
  Comparison narrow = compare_runs(simulate(0.1, needed, 2, 0.05, 0.01, 5), {0.99, 0.01});
  EXPECT_LT(narrow.metrics[0].high - narrow.metrics[0].low, 2 * 0.01 * 1.6);
  Comparison tight = compare_runs(simulate(0.1, 10, 2, 0.0001, 0.0001, 5), {0.99, 0.01});
  EXPECT_EQ(tight.metrics[0].layouts_needed, 0u);
}

TEST(Comparison, ALatencyPointsMeanLatencyByLittlesLaw) {
  // 100 requests a run; in flight 2 ms each in the old build, 1.5 ms in the new: 25% less.
  std::vector<ComparedRun> runs;
  for (size_t l = 0; l < 6; l++) {
    double wobble = 1 + 0.01 * static_cast<double>(l % 3);
    runs.push_back({0, l, 1.0, {{"req", 100}}, {{"req", 100 * 2e6 * wobble}}});
    runs.push_back({1, l, 0.9, {{"req", 100}}, {{"req", 100 * 1.5e6 * wobble}}});
  }
  Comparison c = compare_runs(runs, {0.99, 0.01});
  ASSERT_EQ(c.metrics.size(), 3u);  // wall time, the rate of departures, the latency
  const MetricComparison& latency = c.metrics[2];
  EXPECT_TRUE(latency.latency);
  EXPECT_EQ(latency.name, "req");
  EXPECT_NEAR(latency.speedup, 0.25, 1e-9);
  EXPECT_NEAR(latency.old_value, 2e-3, 2e-4);  // seconds
  EXPECT_EQ(latency.verdict, Verdict::kFaster);
  EXPECT_FALSE(c.metrics[1].latency);
}

TEST(Comparison, TooFewLayoutsAndUnvisitedPoints) {
  std::vector<ComparedRun> runs = {{0, 0, 1.0, {{"a", 10}, {"b", 5}}, {}},
                                   {1, 0, 0.9, {{"a", 10}}, {}}};
  Comparison c = compare_runs(runs, {0.99, 0.01});
  ASSERT_EQ(c.metrics.size(), 2u);  // wall time and a; b was not visited in the new run
  EXPECT_EQ(c.metrics[0].verdict, Verdict::kTooFew);
  EXPECT_FALSE(c.metrics[0].has_interval);
  EXPECT_NEAR(c.metrics[0].speedup, 0.1, 1e-9);
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_NE(c.skipped[0].find("'b'"), std::string::npos);
  EXPECT_TRUE(compare_runs({}, {0.99, 0.01}).metrics.empty());
}

TEST(Comparison, LineSpeedupAndConsistency) {
  LineSpeedup s;
  ASSERT_TRUE(line_speedup(200, 100, 100, 100, 0.95, &s));
  EXPECT_DOUBLE_EQ(s.value, 0.5);
  // Poisson counts: 1/200 + 1/100 in the log ratio's variance, about +-0.24 at 95%.
  EXPECT_NEAR(s.low, 1 - 0.5 * std::exp(1.96 * std::sqrt(1 / 200.5 + 1 / 100.5)), 0.01);
  EXPECT_NEAR(s.high, 1 - 0.5 * std::exp(-1.96 * std::sqrt(1 / 200.5 + 1 / 100.5)), 0.01);
  LineSpeedup many;
  ASSERT_TRUE(line_speedup(20000, 100, 10000, 100, 0.95, &many));
  EXPECT_LT(many.high - many.low, (s.high - s.low) / 5);  // ten times the samples
  ASSERT_TRUE(line_speedup(100, 100, 0, 50, 0.95, &s));
  EXPECT_DOUBLE_EQ(s.value, 1);
  EXPECT_DOUBLE_EQ(s.high, 1);
  EXPECT_LT(s.low, 1);
  ASSERT_TRUE(line_speedup(100, 100, 200, 100, 0.95, &s));
  EXPECT_DOUBLE_EQ(s.value, -1);  // twice as slow
  EXPECT_FALSE(line_speedup(0, 100, 10, 100, 0.95, &s));
  EXPECT_FALSE(line_speedup(10, 100, 10, 0, 0.95, &s));
  EXPECT_TRUE(consistent(0.17, 0.14, 0.20, 0.158, 0.149, 0.167));
  EXPECT_FALSE(consistent(0.17, 0.16, 0.18, 0.10, 0.09, 0.11));
}

}  // namespace
}  // namespace coz::analysis

namespace coz::layout {
namespace {

TEST(LayoutShift, SeedZeroMovesNothingAndOthersStayInRange) {
  LayoutShift none = layout_for(0);
  EXPECT_EQ(none.heap_pad, 0u);
  EXPECT_EQ(none.map_pages, 0u);
  EXPECT_EQ(none.env_pad, 0u);
  EXPECT_EQ(none.thread_pad(1), 0u);
  std::set<size_t> heaps, threads;
  for (uint64_t seed = 1; seed < 2000; seed++) {
    LayoutShift l = layout_for(seed);
    EXPECT_EQ(l.heap_pad % kStep, 0u);
    EXPECT_GT(l.heap_pad, 0u);
    EXPECT_LT(l.heap_pad, kMaxHeapPad);
    EXPECT_LT(l.map_pages, kMaxMapPages);
    EXPECT_LT(l.env_pad, kMaxStackPad);
    EXPECT_EQ(l.thread_pad(3) % kStep, 0u);
    EXPECT_LT(l.thread_pad(3), kMaxStackPad);
    heaps.insert(l.heap_pad);
    threads.insert(l.thread_pad(1));
    EXPECT_EQ(l.heap_pad, layout_for(seed).heap_pad);  // the same layout for the same seed
  }
  EXPECT_GT(heaps.size(), 500u);  // spread over the range, not a handful of values
  EXPECT_GT(threads.size(), 300u);
}

TEST(LayoutShift, TheEnvironmentIsReorderedAndPaddedNotChanged) {
  std::vector<std::string> env = {"A=1", "B=2", "C=3", "D=4", "E=5"};
  EXPECT_EQ(arrange_environment(layout_for(0), env), env);
  std::set<std::vector<std::string>> orders;
  for (uint64_t seed = 1; seed < 50; seed++) {
    LayoutShift l = layout_for(seed);
    std::vector<std::string> out = arrange_environment(l, env);
    ASSERT_EQ(out.size(), env.size() + 1);
    std::multiset<std::string> got(out.begin(), out.end());
    std::string pad = std::string(kPadVariable) + "=" + std::string(l.env_pad, 'x');
    EXPECT_EQ(got.count(pad), 1u);
    got.erase(got.find(pad));
    EXPECT_EQ(got, std::multiset<std::string>(env.begin(), env.end()));
    EXPECT_EQ(out, arrange_environment(l, env));
    orders.insert(out);
  }
  EXPECT_GT(orders.size(), 40u);
}

}  // namespace
}  // namespace coz::layout

namespace coz::cli {
namespace {

TEST(ComparePrediction, ALineIsNamedByItsFileOrAnyPathEndingInIt) {
  EXPECT_TRUE(same_line("/src/app/spin.c:12", "spin.c:12"));
  EXPECT_TRUE(same_line("/src/app/spin.c:12", "app/spin.c:12"));
  EXPECT_TRUE(same_line("spin.c:12", "spin.c:12"));
  EXPECT_TRUE(same_line("app/spin.c:12", "/src/app/spin.c:12"));
  EXPECT_FALSE(same_line("/src/app/myspin.c:12", "spin.c:12"));
  EXPECT_FALSE(same_line("/src/app/spin.c:13", "spin.c:12"));
  EXPECT_FALSE(same_line("(no line)", "spin.c:12"));
}

}  // namespace
}  // namespace coz::cli
