// Programs whose throughput drifts within each run, and single-experiment speedups: profiles
// generated from a known curve, a known drift and known noise, with speedups drawn at random as
// the profiler draws them, read back within their stated intervals; lines that change nothing
// are not flagged; the window of baselines follows the drift and widens without it.
#include "analysis/time_matching.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "analysis/statistics.h"
#include "output/report_output.h"
#include "unit/profile_text.h"

namespace coz::analysis {
namespace {

using test::from_text;
using test::normal;

struct Simulated {
  std::vector<double> slopes;  // per line (/d.c:1, /d.c:2, ...): true program speedup / line's
  // Lines from this index on run only in the last third of each run (as a line of one phase is
  // only sampled, and so only tried, while that phase runs).
  size_t late_lines = SIZE_MAX;
  double drift = 1;     // the period at the end of a run over the period at its start
  double noise = 0.03;  // relative, per experiment
  int runs = 30;
  int experiments_per_run = 8;
  bool with_start = true;  // write `start` (profiles before it had none)
  // Each run's period is multiplied by a factor drawn from 1 to this (a machine whose load
  // changes from run to run), and slower runs last longer.
  double run_levels = 1;
};

// Runs of experiments of 100 ms each, back to back; each picks a line at random and speedup 0
// half the time, else one of 5%..100%; the program's period grows linearly over the run by
// `drift`.
std::string simulate(const Simulated& sim, Rng* rng) {
  std::ostringstream s;
  const double base_period = 1e6, duration = 1e8;
  for (int run = 0; run < sim.runs; run++) {
    s << "startup\ttime=1\n";
    const double level = 1 + (sim.run_levels - 1) * rng->uniform();
    const int experiments =
        static_cast<int>(std::lround(sim.experiments_per_run * level * 2 / (1 + sim.run_levels)));
    for (int k = 0; k < experiments; k++) {
      double when = (k + 0.5) / experiments;
      size_t line = rng->below(
          std::min(sim.slopes.size(), when < 2.0 / 3 ? sim.late_lines : sim.slopes.size()));
      double x = rng->below(2) == 0 ? 0 : 0.05 * static_cast<double>(1 + rng->below(20));
      double period = base_period * level * (1 + (sim.drift - 1) * when) *
                      (1 - sim.slopes[line] * x) * (1 + sim.noise * normal(rng));
      s << "experiment\tselected=/d.c:" << line + 1 << "\tspeedup=" << x
        << "\tduration=" << duration << "\telapsed=" << duration << "\tselected-samples=50";
      if (sim.with_start) {
        s << "\tstart=" << static_cast<long>(k * duration);
      }
      s << "\nthroughput-point\tname=done\tdelta=" << std::lround(duration / period) << "\n";
    }
  }
  return s.str();
}

AnalysisOptions options(uint64_t seed) {
  AnalysisOptions o;
  o.bootstrap = 300;
  o.seed = seed;
  o.min_speedups = 3;
  return o;
}

// A program twice as slow at the end of each run as at its start: lines that change nothing
// (one tried all run long, one only in the run's last third) are flagged in at most 5% of
// profiles, and the 95% intervals of lines of known effect cover the truth in at least 88% of
// them. Compared with every baseline instead, the late line reads as a slowdown.
TEST(TimeMatching, DriftIsNotReadAsAnEffect) {
  Rng rng(21);
  Simulated sim;
  sim.slopes = {0.4, 0.1, 0, 0};
  sim.late_lines = 3;
  sim.drift = 2;
  const int profiles = 40;
  int none_flagged = 0, covered = 0, known = 0, unmatched_off_zero = 0, matched_off_zero = 0;
  for (int p = 0; p < profiles; p++) {
    ProfileData data = from_text(simulate(sim, &rng));
    for (bool matching : {true, false}) {
      AnalysisOptions o = options(static_cast<uint64_t>(p + 1));
      o.time_matching = matching;
      Report r = analyse(data, o);
      for (const Series& s : r.series) {
        double truth = sim.slopes[static_cast<size_t>(s.line.number - 1)];
        double largest = s.curve.back().line_speedup;
        ASSERT_TRUE(s.impact.has_interval);
        bool off_zero = s.impact.low > 0 || s.impact.high < 0;
        if (truth == 0) {
          (matching ? matched_off_zero : unmatched_off_zero) += off_zero;
          none_flagged += matching && (s.significant || s.contention);
        } else if (matching) {
          double impact = truth * largest / 2;  // the mean of truth * x over [0, largest]
          known++;
          covered += s.impact.low <= impact && impact <= s.impact.high;
        }
      }
    }
  }
  EXPECT_LE(none_flagged, profiles * 2 / 20) << "no-effect lines flagged (two per profile)";
  EXPECT_GE(covered, known * 88 / 100) << covered << " of " << known << " intervals cover";
  EXPECT_LE(matched_off_zero, profiles * 2 / 10);
  EXPECT_GT(unmatched_off_zero, profiles / 2) << "the drift is real in these profiles";
}

// Without drift, matching costs little: intervals still cover, and the window takes every
// baseline (cross-validation finds nothing to follow).
TEST(TimeMatching, SteadyProgramsKeepEveryBaseline) {
  Rng rng(5);
  Simulated sim;
  sim.slopes = {0.3, 0};
  int covered = 0, known = 0, all_baselines = 0;
  const int profiles = 30;
  for (int p = 0; p < profiles; p++) {
    Report r = analyse(from_text(simulate(sim, &rng)), options(static_cast<uint64_t>(p + 1)));
    ASSERT_EQ(r.drift.size(), 1u);
    all_baselines += r.drift[0].neighbours == r.drift[0].baselines;
    for (const Series& s : r.series) {
      if (s.line.number == 1) {
        double impact = 0.3 * s.curve.back().line_speedup / 2;
        known++;
        covered += s.impact.low <= impact && impact <= s.impact.high;
      }
    }
  }
  EXPECT_GE(covered, known * 88 / 100) << covered << " of " << known;
  EXPECT_GE(all_baselines, profiles * 2 / 3) << "steady profiles that pooled every baseline";
}

// The case: a line with one experiment per speedup. Its points get intervals as wide as
// experiments differ from one another, not the counting noise inside one experiment.
TEST(TimeMatching, SingleExperimentPointsBorrowTheSpreadBetweenExperiments) {
  Rng rng(3);
  Simulated sim;
  sim.slopes = {0.3, 0};
  sim.noise = 0.05;  // 5% between experiments; counting noise is 1/sqrt(100) = 10%... of visits
  std::string text = simulate(sim, &rng);
  // A third line tried once at each of five speedups (and never at 0%).
  for (double x : {0.2, 0.4, 0.6, 0.8, 1.0}) {
    text += "startup\ttime=1\nexperiment\tselected=/d.c:3\tspeedup=" + std::to_string(x) +
            "\tduration=100000000\telapsed=100000000\tselected-samples=50\tstart=0\n"
            "throughput-point\tname=done\tdelta=100\n";
  }
  Report r = analyse(from_text(text), options(1));
  const Series* once = nullptr;
  for (const Series& s : r.series) {
    once = s.line.number == 3 ? &s : once;
  }
  ASSERT_NE(once, nullptr) << "a line without its own baseline is compared with the point's";
  for (size_t k = 1; k < once->curve.size(); k++) {
    const Estimate& e = once->curve[k].program_speedup;
    ASSERT_TRUE(e.has_interval);
    EXPECT_GT(e.high - e.low, 2 * 1.96 * 0.05 * 0.8) << "at " << once->curve[k].line_speedup;
  }
}

// Profiles without `start` (before it, and Coz's) place experiments back to back: the same
// result as with it when experiments were back to back.
TEST(TimeMatching, ProfilesWithoutStartUseElapsedTimes) {
  Simulated sim;
  sim.slopes = {0.3, 0};
  sim.drift = 1.5;
  Rng a(9), b(9);
  std::string with = simulate(sim, &a);
  sim.with_start = false;
  std::string without = simulate(sim, &b);
  Report r1 = analyse(from_text(with), options(1)), r2 = analyse(from_text(without), options(1));
  ASSERT_EQ(r1.series.size(), r2.series.size());
  for (size_t i = 0; i < r1.series.size(); i++) {
    EXPECT_DOUBLE_EQ(r1.series[i].impact.value, r2.series[i].impact.value);
  }
}

// Runs slowed by other work (each run's level drawn from 1 to 2.5, slower runs lasting longer)
// with no drift within a run: late starts come only from slow runs, and that is not reported as
// drift; references come from the same run (the profile's clock), and a line that changes
// nothing is not flagged.
TEST(TimeMatching, SlowRunsAreNotDrift) {
  Rng rng(17);
  Simulated sim;
  sim.slopes = {0.3, 0};
  sim.run_levels = 2.5;
  sim.experiments_per_run = 10;
  int notable = 0, profile_clock = 0, none_flagged = 0;
  const int profiles = 20;
  for (int p = 0; p < profiles; p++) {
    Report r = analyse(from_text(simulate(sim, &rng)), options(static_cast<uint64_t>(p + 1)));
    ASSERT_EQ(r.drift.size(), 1u);
    notable += r.drift[0].notable();
    profile_clock += r.drift[0].clock == "profile";
    for (const Series& s : r.series) {
      none_flagged += s.line.number == 2 && (s.significant || s.contention);
    }
  }
  EXPECT_LE(notable, profiles / 10);
  EXPECT_GE(profile_clock, profiles * 8 / 10);
  EXPECT_LE(none_flagged, profiles / 10);
}

// The report says when the program drifts, and states the floor its flags need.
TEST(TimeMatching, ReportNamesTheDriftAndTheFloor) {
  Rng rng(4);
  Simulated sim;
  sim.slopes = {0.3, 0};
  sim.drift = 1.5;
  ProfileData data = from_text(simulate(sim, &rng));
  Report r = analyse(data, options(1));
  ASSERT_EQ(r.drift.size(), 1u);
  EXPECT_TRUE(r.drift[0].notable());
  // The last third against the first, each relative to its run's baselines (which the drift moves
  // too): 1.42 / 1.08 - 1 overall, a little less within runs.
  EXPECT_GT(r.drift[0].change, 0.15);
  EXPECT_LT(r.drift[0].change, 0.4);
  std::string text = output::render_text(output::RenderContext{r, data, "impact"});
  EXPECT_NE(text.find("drift: at done, the program's time per visit changes by +"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("at least 2% of impact"), std::string::npos) << text;
  sim.drift = 1;
  Report steady = analyse(from_text(simulate(sim, &rng)), options(1));
  ASSERT_EQ(steady.drift.size(), 1u);
  EXPECT_FALSE(steady.drift[0].notable());
}

TEST(TimeMatching, WindowFollowsDriftAndExcludesItself) {
  std::vector<TimedCost> steady, drifting;
  for (int i = 0; i < 200; i++) {
    double wobble = (i * 7919 % 13) / 13.0 - 0.5;  // deterministic noise of +-5%
    steady.push_back(TimedCost{i * 1e8, i * 1e8, 0, 1e8, 100 * (1 + 0.1 * wobble), true});
    drifting.push_back(
        TimedCost{i * 1e8, i * 1e8, 0, 1e8, 100 * (1 + 0.1 * wobble) / (1 + i / 20.0), true});
  }
  EXPECT_EQ(choose_matching(steady).k, 200u);
  Matching matching = choose_matching(drifting);
  size_t k = matching.k;
  EXPECT_LE(k, 32u);
  TimeMatch m = match_in_time(drifting, matching, true);
  for (size_t i = 0; i < drifting.size(); i++) {
    const TimeMatch::Window& w = m.windows[i];
    EXPECT_EQ(w.right - w.left - (w.self ? 1 : 0), k);
    // The reference is close to the experiment's own cost per visit: the drift is followed.
    EXPECT_NEAR(m.reference[i] / (drifting[i].cost / drifting[i].visits), 1, 0.2) << i;
  }
  TimeMatch off = match_in_time(drifting, matching, false);
  EXPECT_EQ(off.reference[0], 1.0);
}

}  // namespace
}  // namespace coz::analysis
