// Golden profiles (tests/golden/*.coz, written by hand with known answers) run through the
// analysis: the known answers are checked here, and the whole JSON document is compared with
// tests/golden/*.json. COZ_UPDATE_GOLDEN=1 rewrites the expected files; review the diff.
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_map>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "output/report_output.h"
#include "unit/golden.h"

namespace coz::analysis {
namespace {

using test::expect_curve;
using test::Golden;

TEST_F(Golden, ThroughputCurvesBaselinesAndDroppedLines) {
  AnalysisOptions o;
  o.bootstrap = 200;
  Report r = analyse_files({"throughput.coz"}, o);
  EXPECT_EQ(r.experiments, 18u);
  EXPECT_EQ(r.lines_tested, 4u);
  // c.c:30: a baseline and one speedup; d.c:40: one speedup (no baseline of its own: it would
  // be compared with the point's).
  EXPECT_EQ(r.dropped_few_speedups, 2u);
  EXPECT_EQ(r.dropped_no_baseline, 0u);
  ASSERT_EQ(r.series.size(), 2u);
  const Series* a = find(r, "/src/a.c:10", "done");
  const Series* b = find(r, "/src/b.c:20", "done");
  ASSERT_TRUE(a && b);
  expect_curve(*a, {{0, 0}, {0.1, 0.05}, {0.2, 0.1}, {0.5, 0.25}, {1.0, 0.5}});
  expect_curve(*b, {{0, 0}, {0.25, -0.05}, {0.5, -0.1}, {0.75, -0.15}, {1.0, -0.2}});
  EXPECT_NEAR(a->slope.value, 0.5, 1e-9);
  EXPECT_NEAR(b->slope.value, -0.2, 1e-9);
  EXPECT_NEAR(a->impact.value, 0.25,
              1e-9);                      // the mean of 0.5 x over [0, x] is 0.25 x, best at x = 1
  EXPECT_NEAR(a->phase_factor, 1, 1e-9);  // sampled all run long: nothing to correct
  EXPECT_TRUE(a->significant);
  EXPECT_FALSE(a->contention);
  EXPECT_TRUE(b->contention);
  EXPECT_FALSE(b->significant);
  EXPECT_EQ(r.series[0].line.name, "/src/a.c:10");  // ranked by impact
  // Two identical experiments per speedup: the interval is the point itself.
  EXPECT_TRUE(a->curve[2].program_speedup.has_interval);
  EXPECT_NEAR(a->curve[2].program_speedup.low, 0.1, 1e-9);
  // One experiment per speedup borrows the spread of the point's other experiments about their
  // speedups' means: none here (every pair is identical), so the interval is the point itself.
  EXPECT_TRUE(b->curve[2].program_speedup.has_interval);
  EXPECT_NEAR(b->curve[2].program_speedup.low, -0.1, 1e-9);
  EXPECT_TRUE(r.diagnosis.code.empty());
  expect_golden(r, "throughput");
}

TEST_F(Golden, PhaseCorrectionScalesByTheShareOfTheRun) {
  Report r = analyse_files({"phases.coz"});
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_NEAR(r.series[0].phase_factor, 0.5, 1e-9);
  expect_curve(r.series[0], {{0, 0}, {0.25, 0.05}, {0.5, 0.1}, {0.75, 0.15}, {1.0, 0.2}});
  EXPECT_NEAR(r.series[0].curve[4].uncorrected, 0.4, 1e-9);
  expect_golden(r, "phases");

  AnalysisOptions o;
  o.phase_correction = false;
  Report raw = analyse_files({"phases.coz"}, o);
  expect_curve(raw.series[0], {{0, 0}, {0.25, 0.1}, {0.5, 0.2}, {0.75, 0.3}, {1.0, 0.4}});
  EXPECT_FALSE(raw.series[0].phase_corrected);
}

TEST_F(Golden, LatencyByLittlesLawLowerIsPositive) {
  Report r = analyse_files({"latency.coz"});
  const Series* req = find(r, "/src/l.c:7", "req");
  const Series* served = find(r, "/src/l.c:7", "served");
  ASSERT_TRUE(req && served);
  EXPECT_EQ(req->kind, PointMetric::kLatency);
  EXPECT_NEAR(req->curve[0].value_ns, 2e6, 1);  // in-flight-ns / arrivals
  expect_curve(*req, {{0, 0}, {0.2, 0.1}, {0.4, 0.2}, {0.6, 0.3}, {0.8, 0.4}});
  expect_curve(*served, {{0, 0}, {0.2, 0}, {0.4, 0}, {0.6, 0}, {0.8, 0}});
  EXPECT_TRUE(req->significant);
  EXPECT_FALSE(served->significant);
  expect_golden(r, "latency");
}

TEST_F(Golden, LoadSweepGivesAScalabilityTable) {
  Report r = analyse_files({"loads.coz"});
  ASSERT_EQ(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0].label(), "1x");
  EXPECT_EQ(r.levels[1].label(), "2x");
  ASSERT_EQ(r.scalability.size(), 4u);  // (req, served) x (1x, 2x)
  for (const ScalabilityRow& row : r.scalability) {
    bool two = row.level.target == 2;
    EXPECT_EQ(row.runs, 2u);
    EXPECT_NEAR(row.throughput_per_s.value, two ? 2000 : 1000, 1e-6) << row.point;
    EXPECT_NEAR(row.relative_throughput, two ? 2 : 1, 1e-9) << row.point;
    EXPECT_NEAR(row.achieved_load, two ? 1.96 : 1.0, 1e-9);
    if (row.kind == PointMetric::kLatency) {
      EXPECT_NEAR(row.latency_ns.value, two ? 3e6 : 1e6, 1e-3);
    }
  }
  // Only 0% experiments: there is no causal profile, and the report says why.
  EXPECT_TRUE(r.series.empty());
  EXPECT_EQ(r.diagnosis.code, "few-speedups");
  expect_golden(r, "loads");
}

TEST_F(Golden, MergedFilesAndAppendedRunsEqualOneProfile) {
  AnalysisOptions o;
  o.bootstrap = 0;
  Report one = analyse_files({"throughput.coz"}, o);
  Report merged = analyse_files({"merged_one.coz", "merged_two.coz"}, o);
  EXPECT_EQ(merged.runs, 3u);
  ASSERT_EQ(merged.series.size(), 2u);
  for (const Series& s : merged.series) {
    const Series* same = find(one, s.line.name, s.point);
    ASSERT_TRUE(same) << s.line.name;
    ASSERT_EQ(s.curve.size(), same->curve.size());
    for (size_t i = 0; i < s.curve.size(); i++) {
      EXPECT_NEAR(s.curve[i].program_speedup.value, same->curve[i].program_speedup.value, 1e-12);
    }
    EXPECT_NEAR(s.phase_factor, 1, 1e-9) << s.line.name;
  }
  expect_golden(merged, "merged");
}

TEST_F(Golden, CozLegacyProfileWithWrappedInFlightCount) {
  Report r = analyse_files({"coz_legacy.coz"});
  const Series* tput = find(r, "/tmp/cz/t.c:4", "t.c:6");
  const Series* req = find(r, "/tmp/cz/t.c:4", "req");
  ASSERT_TRUE(tput && req);
  expect_curve(*tput, {{0, 0}, {0.25, 0.1251}, {0.5, 0.2498}, {0.75, 0.375}, {1.0, 0.5}});
  // Little's law from Coz's end-of-experiment count: 2 in flight at 500 arrivals per 0.5 s.
  EXPECT_NEAR(req->curve[0].value_ns, 2e6, 1);
  EXPECT_NEAR(req->curve[2].program_speedup.value, 0.5, 1e-9);
  ASSERT_EQ(data_.warnings().size(), 1u);
  EXPECT_NE(data_.warnings()[0].find("negative number in flight"), std::string::npos);
  expect_golden(r, "coz_legacy");
}

// A profile Debian's Coz 0.2.2 wrote (tests/programs/two_hot.c built with -gdwarf-3
// -gstrict-dwarf, `coz run --- ./two_hot 1500`), read as it is: every record is understood, and
// its one tested line (hot_a's loop, 12,398 of 12,403 samples) is active all run long.
TEST_F(Golden, DebianCozProfileReadsWhole) {
  Report r = analyse_files({"coz_debian_0_2.coz"});
  EXPECT_TRUE(data_.inputs()[0].errors.empty());
  EXPECT_TRUE(data_.warnings().empty());
  EXPECT_EQ(data_.experiments().size(), 26u);
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].line.name, "/tmp/cap/two_hot.c:11");
  EXPECT_NEAR(r.series[0].phase_factor, 1, 1e-9);
  expect_golden(r, "coz_debian_0_2");
}

// Coz's JSON-lines keys (`selected_samples`), Coz's meaning of `duration` (real time less the
// delays inserted: 1 s experiments of a line that is the whole program while they run), and a
// run twice as long as the experiments: phase correction must see the selected samples and the
// real time, and halve the curve (eq. 5.8).
TEST_F(Golden, CozJsonLinesProfile) {
  Report r = analyse_files({"coz_jsonl.coz"});
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_NEAR(r.series[0].phase_factor, 0.5, 1e-9);
  expect_curve(r.series[0], {{0, 0}, {0.1, 0.05}, {0.2, 0.1}, {0.5, 0.25}, {0.8, 0.4}});
  EXPECT_TRUE(data_.inputs()[0].errors.empty());
  expect_golden(r, "coz_jsonl");
}

// Two files named mod.rs (a Rust crate's module and the toolchain's): the report, the JSON and the
// CSV show each by the shortest path suffix that tells them apart; main.rs stays a base name.
TEST_F(Golden, SameBaseNamesGetDistinctDisplayNames) {
  Report r = analyse_files({"mod_rs.coz"});
  ASSERT_EQ(r.series.size(), 3u);
  std::unordered_map<std::string, std::string> names = output::display_lines(r);
  EXPECT_EQ(names.at("/rustc/90b35a623/library/core/src/ptr/mod.rs:638"), "ptr/mod.rs:638");
  EXPECT_EQ(names.at("/home/u/proj/src/net/mod.rs:42"), "net/mod.rs:42");
  EXPECT_EQ(names.at("/home/u/proj/src/main.rs:17"), "main.rs:17");
  output::RenderContext ctx{r, data_, "impact"};
  std::string text = output::render_text(ctx);
  EXPECT_NE(text.find(" net/mod.rs:42 "), std::string::npos) << text;
  EXPECT_NE(text.find(" ptr/mod.rs:638 "), std::string::npos) << text;
  EXPECT_EQ(text.find("/home/u"), std::string::npos) << text;
  std::string csv = output::render_csv(ctx);
  std::string header = csv.substr(0, csv.find('\n'));
  // After the columns it came after, so readers that count columns keep theirs.
  EXPECT_NE(header.find(",value_ns,display,"), std::string::npos) << header;
  EXPECT_NE(csv.find(",\"/home/u/proj/src/net/mod.rs:42\","), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"net/mod.rs:42\",12750,0,0,0\n"), std::string::npos) << csv;
  expect_golden(r, "mod_rs");
}

// Blocked samples (off the CPU) per line: wait.c:12 ran 10% of its samples, sleep.c:7 none
// (blocked alone), cpu.c:3 has no `blocked` key, as in older profiles. Lines that mostly wait are
// flagged off-cpu in the text, the JSON and the CSV (its new columns last); older profiles get
// none.
TEST_F(Golden, OffCpuLinesAreFlagged) {
  Report r = analyse_files({"off_cpu.coz"});
  ASSERT_EQ(r.series.size(), 3u);
  const Series* wait = find(r, "/src/wait.c:12", "done");
  const Series* sleep = find(r, "/src/sleep.c:7", "done");
  const Series* cpu = find(r, "/src/cpu.c:3", "done");
  ASSERT_TRUE(wait && sleep && cpu);
  EXPECT_NEAR(wait->samples.blocked_share, 0.9, 1e-12);
  EXPECT_TRUE(wait->samples.off_cpu);
  EXPECT_EQ(sleep->samples.running, 0);
  EXPECT_EQ(sleep->samples.blocked, 27800);
  EXPECT_EQ(sleep->samples.blocked_share, 1);
  EXPECT_TRUE(sleep->samples.off_cpu);
  // The runtime counts a wait on the selected line among its selected samples: phase correction
  // counts the line's blocked samples too, so a line that waits all run long is active all along
  // (by its running samples alone, wait.c:12 would look active 10% of the run and be scaled by
  // 0.1, and sleep.c:7 could not be corrected at all).
  for (const Series* s : {wait, sleep, cpu}) {
    EXPECT_TRUE(s->phase_corrected) << s->line.name;
    EXPECT_NEAR(s->phase_factor, 1, 1e-9) << s->line.name;
  }
  EXPECT_EQ(cpu->samples.blocked_share, 0);
  EXPECT_FALSE(cpu->samples.off_cpu);
  output::RenderContext ctx{r, data_, "impact"};
  std::string text = output::render_text(ctx);
  EXPECT_NE(text.find("significant off-cpu 90%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  off-cpu 100%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("off-cpu N%: N% of the line's samples were blocked"), std::string::npos);
  std::string csv = output::render_csv(ctx);
  std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.substr(header.find(",display,")),
            ",display,samples,blocked_samples,blocked_share,off_cpu");
  EXPECT_NE(csv.find(",\"sleep.c:7\",0,27800,1,1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"wait.c:12\",2780,25020,0.9,1\n"), std::string::npos) << csv;
  expect_golden(r, "off_cpu");

  Report old = analyse_files({"throughput.coz"});
  EXPECT_EQ(output::render_text(output::RenderContext{old, data_, "impact"}).find("off-cpu"),
            std::string::npos);
  for (const Series& s : old.series) {
    EXPECT_EQ(s.samples.blocked, 0);
    EXPECT_FALSE(s.samples.off_cpu);
  }
}

// The text table fits the width it is given (a terminal's, 80 columns or more): it gives up @N%
// columns and then shortens line names from the left, never below what tells them apart at the end.
TEST_F(Golden, TextFitsTheTerminalWidth) {
  Report r = analyse_files({"mod_rs.coz"});
  std::string wide = output::render_text(output::RenderContext{r, data_, "impact", 0});
  EXPECT_NE(wide.find("@10%"), std::string::npos) << wide;
  for (size_t width : {80, 100, 120}) {
    std::string text = output::render_text(output::RenderContext{r, data_, "impact", width});
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      EXPECT_LE(line.size(), width) << line;
    }
    EXPECT_NE(text.find("@50%"), std::string::npos) << text;
    EXPECT_NE(text.find("mod.rs:638"), std::string::npos) << text;
  }
}

// Several progress points share one overview table by default; --each-point gives each its own.
TEST_F(Golden, SeveralPointsShareOneOverview) {
  Report r = analyse_files({"latency.coz"});
  rank_in_groups(&r.series, SortOrder::kImpact);
  std::string overview = output::render_text(output::RenderContext{r, data_, "impact"});
  EXPECT_NE(overview.find("2 progress points: 1 line"), std::string::npos) << overview;
  EXPECT_NE(overview.find("\"req\" latency"), std::string::npos) << overview;
  EXPECT_NE(overview.find("  1  l.c:7  +20.0% [+20.0, +20.0]*"), std::string::npos) << overview;
  EXPECT_EQ(overview.find("@50%"), std::string::npos) << overview;
  std::string each = output::render_text(output::RenderContext{r, data_, "impact", 0, true});
  EXPECT_NE(each.find("\"req\" (latency), load 1x: 1 line"), std::string::npos) << each;
  EXPECT_NE(each.find("\"served\" (throughput), load 1x: 1 line"), std::string::npos) << each;
}

// CSV keeps whole numbers whole: visits and nanosecond durations print every digit.
TEST_F(Golden, CsvKeepsCountsExact) {
  Report r = analyse_files({"throughput.coz"});
  std::string csv = output::render_csv(output::RenderContext{r, data_, "impact"});
  EXPECT_EQ(csv.find("e+"), std::string::npos) << csv;
}

TEST_F(Golden, TruncatedProfileKeepsEverythingBeforeTheCut) {
  Report r = analyse_files({"truncated.coz"});
  const std::vector<ParseError>& errors = data_.inputs()[0].errors;
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].line, 8u);   // `experiment	selected` is not key=value
  EXPECT_EQ(errors[1].line, 23u);  // cut short: no end of line
  EXPECT_NE(errors[1].message.find("truncated"), std::string::npos);
  EXPECT_EQ(r.experiments, 10u);
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_FALSE(r.series[0].phase_corrected);  // the run never wrote its totals
  expect_curve(r.series[0], {{0, 0}, {0.1, 0.05}, {0.2, 0.1}, {0.5, 0.25}, {1.0, 0.5}});
  expect_golden(r, "truncated");
}

}  // namespace
}  // namespace coz::analysis
