// `coz report` from the command line: a real profile of a two-function program ranks the heavier
// function's line first; `coz run` ends with its two-line summary; bad input gets one clear line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::golden;
using test::line_name;
using test::run_process;
using test::TempDir;

TEST(CozReport, RanksTheHeavierFunctionsLineFirst) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  // hot_a nine times heavier than hot_b, profiled for 12 s of runs: on a busy CPU the program's
  // share of it varies from one experiment to the next, so two lines of 2:1 are not told apart
  // in a test's time, and stopping at the first moment they look told apart (--until-confident)
  // can stop on a few experiments of hot_b whose baseline came from a slower moment.
  auto run = run_process({COZ_TEST_CLI, "run", "--experiment-length", "25ms", "--budget", "12s",
                          "-o", profile, "---", fixture("two_hot_skewed"), "300"});
  ASSERT_EQ(run.status, 0) << run.err;
  // The two-line summary: experiments this run, then lines with usable data (or why none).
  EXPECT_NE(run.err.find("profile written to " + profile + ": "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" experiments this run"), std::string::npos) << run.err;

  auto csv = run_process({COZ_TEST_CLI, "report", "--csv", "--min-points", "3", profile});
  ASSERT_EQ(csv.status, 0) << csv.err;
  size_t first_row = csv.out.find('\n') + 1;
  std::string row = csv.out.substr(first_row, csv.out.find('\n', first_row) - first_row);
  EXPECT_NE(row.find(",1,\"" + line_name("two_hot.c", "hot_a") + "\","), std::string::npos)
      << csv.out;

  auto text = run_process({COZ_TEST_CLI, "report", "--min-points", "3", profile});
  ASSERT_EQ(text.status, 0) << text.err;
  size_t a = text.out.find(
      "two_hot.c:" + std::to_string(test::marker_line(test::program_source("two_hot.c"), "hot_a")));
  size_t b = text.out.find(
      "two_hot.c:" + std::to_string(test::marker_line(test::program_source("two_hot.c"), "hot_b")));
  ASSERT_NE(a, std::string::npos) << text.out;
  EXPECT_TRUE(b == std::string::npos || a < b) << text.out;
}

TEST(CozReport, JsonIsVersionedAndCarriesTheDiagnosis) {
  auto r = run_process({COZ_TEST_CLI, "report", "--json", golden("loads.coz")});
  EXPECT_EQ(r.status, 0) << r.err;  // a load sweep: no causal profile, but a scalability table
  EXPECT_NE(r.out.find("\"schema\": \"coz-amp-report\""), std::string::npos);
  EXPECT_NE(r.out.find("\"version\": 1"), std::string::npos);
  EXPECT_NE(r.out.find("\"code\": \"few-speedups\""), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no causal profile: "), std::string::npos) << r.err;
}

TEST(CozReport, BadInputGetsOneClearLine) {
  TempDir dir;
  auto missing = run_process({COZ_TEST_CLI, "report", dir.file("nope.coz")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("cannot read " + dir.file("nope.coz")), std::string::npos)
      << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;

  std::ofstream(dir.file("empty.coz"))
      << "startup\ttime=1\nruntime\ttime=200000000\nsamples\tlocation=/a.c:1\tcount=2\n";
  auto empty = run_process({COZ_TEST_CLI, "report", dir.file("empty.coz")});
  EXPECT_EQ(empty.status, 1);
  EXPECT_EQ(empty.out, "");
  EXPECT_NE(empty.err.find("nothing to show: no experiment finished"), std::string::npos)
      << empty.err;
  EXPECT_NE(empty.err.find("--end-to-end"), std::string::npos) << empty.err;

  auto point = run_process({COZ_TEST_CLI, "report", "--point", "nope", golden("throughput.coz")});
  EXPECT_EQ(point.status, 2);
  EXPECT_NE(point.err.find("no progress point \"nope\" in the profile; it has \"done\""),
            std::string::npos)
      << point.err;

  auto load = run_process({COZ_TEST_CLI, "report", "--load", "3", golden("loads.coz")});
  EXPECT_EQ(load.status, 2);
  EXPECT_NE(load.err.find("no load level 3 in the profile; it has 1x, 2x"), std::string::npos)
      << load.err;

  auto option = run_process({COZ_TEST_CLI, "report", "--sort", "fastest"});
  EXPECT_EQ(option.status, 2);
  EXPECT_NE(option.err.find("--sort takes impact, slope, max or name"), std::string::npos)
      << option.err;

  auto directory = run_process({COZ_TEST_CLI, "report", dir.path()});
  EXPECT_EQ(directory.status, 2);
  EXPECT_NE(directory.err.find("is a directory, not a profile"), std::string::npos)
      << directory.err;

  std::ofstream(dir.file("garbage.coz")) << "hello world\n{not json}\n";
  auto garbage = run_process({COZ_TEST_CLI, "report", dir.file("garbage.coz")});
  EXPECT_EQ(garbage.status, 1);
  EXPECT_NE(garbage.err.find("no profile record could be read (2 malformed lines)"),
            std::string::npos)
      << garbage.err;

  auto bad = run_process({COZ_TEST_CLI, "report", golden("truncated.coz")});
  EXPECT_EQ(bad.status, 0) << bad.err;
  EXPECT_NE(bad.err.find("truncated.coz:8: "), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("truncated.coz:23: truncated record"), std::string::npos) << bad.err;
}

TEST(CozReport, FiltersByPointAndLoad) {
  auto latency = run_process({COZ_TEST_CLI, "report", "--point", "req", golden("latency.coz")});
  ASSERT_EQ(latency.status, 0) << latency.err;
  EXPECT_NE(latency.out.find("\"req\" (latency), load 1x: 1 line"), std::string::npos)
      << latency.out;
  EXPECT_EQ(latency.out.find("\"served\""), std::string::npos) << latency.out;
  auto sweep = run_process(
      {COZ_TEST_CLI, "report", "--load", "2x", "--point", "served", golden("loads.coz")});
  EXPECT_EQ(sweep.status, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("scalability of \"served\""), std::string::npos) << sweep.out;
  EXPECT_EQ(sweep.out.find("\"req\""), std::string::npos) << sweep.out;
  EXPECT_EQ(sweep.out.find("1x"), std::string::npos) << sweep.out;
}

TEST(CozReport, UncorrectedAndSortOptions) {
  auto corrected = run_process({COZ_TEST_CLI, "report", golden("phases.coz")});
  EXPECT_NE(corrected.out.find("+20.0%  "), std::string::npos)
      << corrected.out;  // at 100%: 0.4 x 0.5
  EXPECT_NE(corrected.out.find("phase x0.50"), std::string::npos) << corrected.out;
  auto raw = run_process({COZ_TEST_CLI, "report", "--uncorrected", golden("phases.coz")});
  EXPECT_NE(raw.out.find("+40.0%  "), std::string::npos) << raw.out;
  EXPECT_NE(raw.out.find("not phase-corrected"), std::string::npos) << raw.out;
  auto by_name = run_process({COZ_TEST_CLI, "report", "--sort", "name", "--json", "--seed",
                              "18446744073709551615", golden("throughput.coz")});
  EXPECT_NE(by_name.out.find("\"sort\": \"name\""), std::string::npos);
  EXPECT_NE(by_name.out.find("\"seed\": 18446744073709551615"), std::string::npos) << by_name.out;
  auto twice = run_process({COZ_TEST_CLI, "report", golden("phases.coz"), golden("phases.coz")});
  EXPECT_NE(twice.out.find("was given twice; it is read once"), std::string::npos) << twice.out;
  EXPECT_NE(twice.out.find("1 run,"), std::string::npos) << twice.out;
}

}  // namespace
}  // namespace coz
