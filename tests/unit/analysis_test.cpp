// Analysis beyond the golden files: each reason an empty report gives, records read or refused,
// running and blocked samples per line, and property tests that
// profiles generated from a known speedup curve plus noise are recovered within their stated
// intervals at about the stated rate, with false discoveries controlled.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "analysis/causal_profile.h"
#include "analysis/line_samples.h"
#include "analysis/profile_data.h"
#include "analysis/statistics.h"
#include "unit/profile_text.h"

namespace coz::analysis {
namespace {

using test::from_text;
using test::normal;

std::string diagnosis_of(const std::string& text) {
  return analyse(from_text(text), {}).diagnosis.code;
}

std::string experiment(double speedup, int visits, const char* line = "/a.c:1") {
  std::ostringstream s;
  s << "experiment\tselected=" << line << "\tspeedup=" << speedup
    << "\tduration=500000000\tselected-samples=500\n"
    << "throughput-point\tname=done\tdelta=" << visits << "\n";
  return s.str();
}

TEST(Diagnosis, SaysWhyNothingCanBeShown) {
  EXPECT_EQ(diagnosis_of(""), "empty");
  EXPECT_EQ(diagnosis_of("startup\ttime=1\nruntime\ttime=300000000\n"), "no-debug-info");
  EXPECT_EQ(diagnosis_of("startup\ttime=1\nruntime\ttime=2000000\n"),
            "too-short");                                     // 2 ms: no sample yet
  EXPECT_EQ(diagnosis_of("startup\ttime=1\n"), "too-short");  // killed before it wrote its totals
  EXPECT_EQ(diagnosis_of(
                "startup\ttime=1\nruntime\ttime=300000000\nsamples\tlocation=/a.c:1\tcount=300\n"),
            "too-short");
  EXPECT_EQ(diagnosis_of("startup\ttime=1\n" + experiment(0, 0) + experiment(0.5, 0)),
            "no-progress");
  EXPECT_EQ(diagnosis_of("startup\ttime=1\n" + experiment(0.5, 10) + experiment(0.25, 10)),
            "no-baseline");
  EXPECT_EQ(diagnosis_of("startup\ttime=1\n" + experiment(0, 10) + experiment(0.25, 10)),
            "few-speedups");
  EXPECT_EQ(
      diagnosis_of("startup\ttime=1\n" + experiment(0, 10, kNoLine) + experiment(0, 10, kNoLine)),
      "load-only");
  Report load_only = analyse(from_text("startup\ttime=1\n" + experiment(0, 10, kNoLine)), {});
  EXPECT_EQ(load_only.lines_tested, 0u);
  EXPECT_EQ(load_only.points.size(), 1u);  // its visits still count
  std::string enough = "startup\ttime=1\n";
  for (double x : {0.0, 0.1, 0.2, 0.3, 0.4}) {
    enough += experiment(x, 10);
  }
  EXPECT_EQ(diagnosis_of(enough), "");
  Report r = analyse(from_text("startup\ttime=1\n" + experiment(0, 10) + experiment(0.25, 10)), {});
  EXPECT_NE(r.diagnosis.message.find("--runs"), std::string::npos) << r.diagnosis.message;
}

TEST(ProfileData, PointRecordsOutsideAnExperimentAndUnknownTypesAreReported) {
  ProfileData d = from_text("throughput-point\tname=x\tdelta=1\nstartup\ttime=1\nbogus\tx=1\n" +
                            experiment(0, 3));
  ASSERT_EQ(d.inputs()[0].errors.size(), 2u);
  EXPECT_EQ(d.inputs()[0].errors[0].line, 1u);
  EXPECT_EQ(d.inputs()[0].errors[1].line, 3u);
  EXPECT_EQ(d.experiments().size(), 1u);
}

TEST(ProfileData, NonFiniteAndNegativeNumbersAreRejectedWithTheirLine) {
  std::string text = "startup\ttime=1\n" + experiment(0, 10) +  // lines 2-3
                     "experiment\tselected=/a.c:1\tspeedup=nan\tduration=500000000\n" +  // 4
                     "throughput-point\tname=done\tdelta=10\n" +  // 5: goes with it
                     "experiment\tselected=/a.c:1\tspeedup=0.5\tduration=-3e9\n" +  // 6
                     "experiment\tselected=/a.c:1\tspeedup=0.5\tduration=inf\n" +   // 7
                     "experiment\tselected=/a.c:1\tspeedup=0x1p-1\tduration=5\n" +  // 8
                     experiment(0.5, 10) +                                          // 9-10
                     "throughput-point\tname=other\tdelta=-1000\n";                 // 11
  ProfileData d = from_text(text);
  std::vector<size_t> lines;
  for (const ParseError& e : d.inputs()[0].errors) {
    lines.push_back(e.line);
  }
  EXPECT_EQ(lines, (std::vector<size_t>{4, 6, 7, 8, 11}));
  ASSERT_EQ(d.experiments().size(), 2u);
  EXPECT_EQ(d.experiments()[1].points.size(), 1u);  // "other" was dropped, "done" kept
}

// An experiment whose progress-making threads still owed more than a tenth of its time at its
// end is saturated, and the report counts it; profiles without `owed` have none.
TEST(ProfileData, ExperimentsWithMuchStillOwedAreCountedSaturated) {
  std::string text = "startup\ttime=1\n" + experiment(0, 10) +
                     "experiment\tselected=/a.c:1\tspeedup=1\tduration=300\telapsed=1000\t"
                     "inserted=800\towed=100\nthroughput-point\tname=done\tdelta=3\n" +
                     "experiment\tselected=/a.c:1\tspeedup=1\tduration=201\telapsed=1000\t"
                     "inserted=900\towed=101\nthroughput-point\tname=done\tdelta=3\n";
  ProfileData d = from_text(text);
  ASSERT_EQ(d.experiments().size(), 3u);
  EXPECT_FALSE(d.experiments()[0].saturated());
  EXPECT_FALSE(d.experiments()[1].saturated()) << "a tenth of its time is not more than a tenth";
  EXPECT_TRUE(d.experiments()[2].saturated());
  EXPECT_EQ(analyse(d, {}).saturated, 1u);
}

// Blocked samples (off the CPU) beside running ones: summed per line over runs, a line with blocked
// samples alone included; older profiles without the key have none; a bad value is reported.
TEST(ProfileData, BlockedSamplesAreReadBesideRunningOnes) {
  ProfileData d = from_text(
      "startup\ttime=1\tformat=1\toff-cpu=calls\n"
      "samples\tlocation=/a.c:1\tcount=3\tblocked=40\n"
      "samples\tlocation=/b.c:2\tcount=0\tblocked=7\n"
      "samples\tlocation=/c.c:3\tcount=5\n"              // 4: an older record, no `blocked`
      "samples\tlocation=/c.c:3\tcount=1\tblocked=-2\n"  // 5: skipped, its count too
      "samples\tlocation=/c.c:3\tcount=1\tblocked=2e15\n"
      "samples\tlocation=/c.c:3\tcount=1\tblocked=many\n"
      "startup\ttime=2\tformat=1\toff-cpu=sometimes\n"
      "samples\tlocation=/a.c:1\tcount=1\tblocked=2\n");
  std::vector<size_t> lines;
  for (const ParseError& e : d.inputs()[0].errors) {
    lines.push_back(e.line);
    EXPECT_NE(e.message.find("samples blocked"), std::string::npos) << e.message;
  }
  EXPECT_EQ(lines, (std::vector<size_t>{5, 6, 7}));
  ASSERT_EQ(d.runs().size(), 2u);
  EXPECT_EQ(d.runs()[0].off_cpu, "calls");
  EXPECT_EQ(d.runs()[1].off_cpu, "sometimes");  // unknown words are kept as written
  EXPECT_EQ(d.runs()[0].blocked.at("/b.c:2"), 7);
  EXPECT_EQ(d.runs()[0].samples.at("/c.c:3"), 5);
  EXPECT_EQ(d.runs()[0].blocked.count("/c.c:3"), 0u);
  EXPECT_EQ(d.sample_records(), 4u);

  std::map<std::string, LineSamples> lines_sampled = line_samples(d);
  ASSERT_EQ(lines_sampled.size(), 3u);
  const LineSamples& a = lines_sampled.at("/a.c:1");
  EXPECT_EQ(a.running, 4);
  EXPECT_EQ(a.blocked, 42);
  EXPECT_NEAR(a.blocked_share, 42.0 / 46, 1e-12);
  EXPECT_TRUE(a.off_cpu);
  EXPECT_EQ(lines_sampled.at("/b.c:2").blocked_share, 1);  // blocked alone
  EXPECT_TRUE(lines_sampled.at("/b.c:2").off_cpu);
  EXPECT_EQ(lines_sampled.at("/c.c:3").blocked_share, 0);
  EXPECT_FALSE(lines_sampled.at("/c.c:3").off_cpu);
}

TEST(LineSamples, AtLeastHalfBlockedIsOffCpu) {
  EXPECT_EQ(line_samples(0, 0).blocked_share, 0);  // nothing sampled: no share, no mark
  EXPECT_FALSE(line_samples(0, 0).off_cpu);
  EXPECT_TRUE(line_samples(5, 5).off_cpu);  // the threshold itself
  EXPECT_FALSE(line_samples(6, 4).off_cpu);
  EXPECT_NEAR(line_samples(1, 3).blocked_share, 0.75, 1e-12);
}

// The series of a line with blocked samples alone carries them; an older profile's lines have
// none, and their curves do not change with the new key.
TEST(LineSamples, SeriesCarryTheirLinesSamples) {
  std::string text = "startup\ttime=1\n";
  for (double x : {0.0, 0.1, 0.2, 0.3, 0.4}) {
    text += experiment(x, static_cast<int>(std::lround(10 / (1 - 0.5 * x)))) +
            experiment(x, static_cast<int>(std::lround(10 / (1 - 0.5 * x))), "/w.c:9");
  }
  AnalysisOptions o;
  o.bootstrap = 0;
  Report old = analyse(from_text(text + "samples\tlocation=/a.c:1\tcount=30\n"), o);
  Report now = analyse(from_text(text + "samples\tlocation=/a.c:1\tcount=30\n" +
                                 "samples\tlocation=/w.c:9\tcount=0\tblocked=40\n"),
                       o);
  ASSERT_EQ(old.series.size(), 2u);
  ASSERT_EQ(now.series.size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    EXPECT_EQ(old.series[i].samples.blocked_share, 0);
    EXPECT_FALSE(old.series[i].samples.off_cpu);
    EXPECT_EQ(now.series[i].curve[2].program_speedup.value,
              old.series[i].curve[2].program_speedup.value);
  }
  const Series& w = now.series[0].line.name == "/w.c:9" ? now.series[0] : now.series[1];
  EXPECT_EQ(w.samples.running, 0);
  EXPECT_EQ(w.samples.blocked, 40);
  EXPECT_EQ(w.samples.blocked_share, 1);
  EXPECT_TRUE(w.samples.off_cpu);
}

TEST(Ranking, EveryOrder) {
  // a: 0.5 x; d: 0.3 from 10% on (saturates); c: slows the program.
  std::string text = "startup\ttime=1\n";
  for (double x : {0.0, 0.1, 0.25, 0.5, 0.75, 1.0}) {
    text += experiment(x, static_cast<int>(std::lround(1e4 / (1 - 0.5 * x))), "/a.c:1");
    text += experiment(x, static_cast<int>(std::lround(1e4 / (1 - (x > 0 ? 0.3 : 0)))), "/d.c:4");
    text += experiment(x, static_cast<int>(std::lround(1e4 / (1 + 0.2 * x))), "/c.c:3");
  }
  AnalysisOptions o;
  o.bootstrap = 0;
  Report r = analyse(from_text(text), o);
  auto order = [&r](SortOrder by) {
    rank(&r.series, by);
    std::string names;
    for (const Series& s : r.series) {
      names += s.line.name.substr(1, 1);
    }
    return names;
  };
  EXPECT_EQ(order(SortOrder::kImpact), "dac");      // mean over [0, 1]: 0.285 against 0.25
  EXPECT_EQ(order(SortOrder::kSlope), "adc");       // 0.5 against about 0.41
  EXPECT_EQ(order(SortOrder::kMaxSpeedup), "adc");  // 0.5 against 0.3
  EXPECT_EQ(order(SortOrder::kName), "acd");
}

TEST(Ranking, LinesWithoutAnIntervalRankBelowLinesWithOne) {
  // b.c looks better (0.9 x) but its point, "rare", has one experiment per speedup: no spread
  // between experiments to borrow, so no interval. a.c (0.3 x) has three per speedup at "done".
  std::string text = "startup\ttime=1\n";
  for (double x : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    for (int k = 0; k < 3; k++) {
      text +=
          experiment(x, static_cast<int>(std::lround((1e4 + 10 * k) / (1 - 0.3 * x))), "/a.c:1");
    }
    std::string rare =
        experiment(x, static_cast<int>(std::lround(1e4 / (1 - 0.9 * x + 0.01))), "/b.c:2");
    text += rare.replace(rare.find("name=done"), 9, "name=rare");
  }
  Report r = analyse(from_text(text), AnalysisOptions{});
  ASSERT_EQ(r.series.size(), 2u);
  rank(&r.series, SortOrder::kImpact);
  EXPECT_EQ(r.series[0].line.name, "/a.c:1");
  EXPECT_TRUE(r.series[0].impact.has_interval);
  EXPECT_FALSE(r.series[1].impact.has_interval);
  EXPECT_GT(r.series[1].impact.value, r.series[0].impact.value);
  // The fitted curve's predictions: up to the largest speedup measured, with intervals.
  ASSERT_EQ(r.series[0].predicted.size(), 4u);
  EXPECT_NEAR(r.series[0].predicted[2].program_speedup.value, 0.15, 0.02);
  EXPECT_TRUE(r.series[0].predicted[2].program_speedup.has_interval);
  EXPECT_LE(r.series[0].predicted[2].program_speedup.low, 0.15);
  EXPECT_GE(r.series[0].predicted[2].program_speedup.high, 0.15);
}

// --- property tests ------------------------------------------------------------------------

// One run of experiments on `line`: n at each speedup, true program speedup slope * x, each
// experiment's period off by `noise` (relative, normal).
std::string simulated_run(Rng* rng, const std::string& line, double slope, int n, double noise) {
  std::ostringstream s;
  s << "startup\ttime=1\n";
  const double base_period = 1e6, duration = 5e8;
  for (double x : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    for (int k = 0; k < n; k++) {
      double period = base_period * (1 - slope * x) * (1 + noise * normal(rng));
      s << "experiment\tselected=" << line << "\tspeedup=" << x << "\tduration=" << duration
        << "\tselected-samples=500\nthroughput-point\tname=done\tdelta="
        << std::lround(duration / period) << "\n";
    }
  }
  return s.str();
}

TEST(AnalysisProperty, IntervalsCoverTheTrueCurveAtAboutTheStatedRate) {
  Rng rng(7);
  AnalysisOptions o;  // 95% intervals
  o.bootstrap = 400;
  const double slope = 0.4;
  int points = 0, covered = 0, slopes_covered = 0, profiles = 120;
  double width = 0;
  for (int p = 0; p < profiles; p++) {
    o.seed = static_cast<uint64_t>(p + 1);
    Report r = analyse(from_text(simulated_run(&rng, "/x.c:1", slope, 10, 0.05)), o);
    ASSERT_EQ(r.series.size(), 1u);
    const Series& s = r.series[0];
    for (const CurvePoint& c : s.curve) {
      if (c.line_speedup == 0) {
        continue;
      }
      ASSERT_TRUE(c.program_speedup.has_interval);
      double truth = slope * c.line_speedup;
      points++;
      covered += c.program_speedup.low <= truth && truth <= c.program_speedup.high;
      width += c.program_speedup.high - c.program_speedup.low;
    }
    ASSERT_TRUE(s.slope.has_interval);
    slopes_covered += s.slope.low <= slope && slope <= s.slope.high;
  }
  double rate = static_cast<double>(covered) / points;
  double slope_rate = static_cast<double>(slopes_covered) / profiles;
  // The percentile bootstrap runs a little under its nominal rate with 10 experiments a point.
  EXPECT_GE(rate, 0.88) << covered << " of " << points;
  EXPECT_LE(rate, 0.995) << "intervals too wide to be useful";
  EXPECT_GE(slope_rate, 0.88) << slopes_covered << " of " << profiles;
  EXPECT_LT(width / points, 0.1) << "mean interval width";
}

TEST(AnalysisProperty, FalseDiscoveriesStayControlledAcrossManyLines) {
  Rng rng(11);
  AnalysisOptions o;
  o.bootstrap = 400;
  int false_flags = 0, flags = 0, true_flags = 0, real_lines = 0;
  for (int p = 0; p < 6; p++) {
    std::string text;
    for (int line = 0; line < 30; line++) {
      bool real = line < 5;
      text += simulated_run(&rng, "/l.c:" + std::to_string(line + 1), real ? 0.3 : 0, 3, 0.05);
    }
    o.seed = static_cast<uint64_t>(p + 1);
    Report r = analyse(from_text(text), o);
    ASSERT_EQ(r.series.size(), 30u);
    for (const Series& s : r.series) {
      bool real = s.line.number <= 5;
      flags += s.significant;
      false_flags += s.significant && !real;
      true_flags += s.significant && real;
      real_lines += real;
    }
  }
  EXPECT_LE(false_flags, std::max(2, flags / 10))
      << false_flags << " false of " << flags << " flags";
  EXPECT_GE(true_flags, real_lines * 8 / 10)
      << true_flags << " of " << real_lines << " real effects found";
}

}  // namespace
}  // namespace coz::analysis
