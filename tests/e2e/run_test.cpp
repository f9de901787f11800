// Programs run under the real runtime with `coz run`: samples land on the right lines, threads
// are sampled wherever they were created, progress points count, and I/O and status pass through.
#include <gtest/gtest.h>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::line_name;
using test::marker_line;
using test::program_source;
using test::read_records;
using test::run_process;
using test::samples_by_line;
using test::TempDir;

TEST(CozRun, TwoHotFunctionsGetTheirSamplesInProportion) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "-o", profile, "---", fixture("two_hot"), "60"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done 60 rounds\n");
  EXPECT_NE(r.err.find("profile written to " + profile), std::string::npos) << r.err;

  std::vector<Record> records = read_records(profile);
  ASSERT_GE(records.size(), 3u);
  EXPECT_EQ(records.front().kind, RecordKind::kStartup);
  EXPECT_GT(records.front().u64("time"), 0u);
  auto samples = samples_by_line(records);
  uint64_t total = 0;
  for (auto& [line, n] : samples) {
    total += n;
  }
  uint64_t a = samples[line_name("two_hot.c", "hot_a")];
  uint64_t b = samples[line_name("two_hot.c", "hot_b")];
  ASSERT_GT(total, 100u) << "expected ~1 sample per ms of CPU time";
  EXPECT_GE(static_cast<double>(a + b), 0.9 * static_cast<double>(total))
      << "a=" << a << " b=" << b << " total=" << total;
  ASSERT_GT(b, 0u);
  double ratio = static_cast<double>(a) / static_cast<double>(b);
  EXPECT_GT(ratio, 1.4) << "hot_a does twice hot_b's work";
  EXPECT_LT(ratio, 2.8) << "hot_a does twice hot_b's work";

  bool has_runtime = false;
  for (const Record& rec : records) {
    has_runtime = has_runtime || (rec.kind == RecordKind::kRuntime && rec.u64("time") > 0);
  }
  EXPECT_TRUE(has_runtime);
}

TEST(CozRun, RunsAppendToOneProfile) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  for (int i = 0; i < 2; i++) {
    auto r = run_process({COZ_TEST_CLI, "run", "-o", profile, "---", fixture("two_hot"), "3"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  int startups = 0;
  for (const Record& rec : read_records(profile)) {
    startups += rec.kind == RecordKind::kStartup;
  }
  EXPECT_EQ(startups, 2);
}

TEST(CozRun, ThreadsAreSampledWhereverTheyStarted) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  // Both the executable and the library whose constructor starts a thread are in scope.
  auto r = run_process({COZ_TEST_CLI, "run", "-b", "MAIN,%libearly_thread.so", "-o", profile, "---",
                        fixture("threads")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "threads done\n");
  auto samples = samples_by_line(read_records(profile));
  EXPECT_GT(samples[line_name("threads.c", "worker")], 50u) << "threads created by the program";
  EXPECT_GT(samples[line_name("early_thread.c", "early")], 50u)
      << "a thread that existed before the runtime's constructor";
}

TEST(CozRun, LibraryTimeIsChargedToTheCallingLine) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "-o", profile, "---", fixture("lib_calls")});
  ASSERT_EQ(r.status, 0) << r.err;
  auto samples = samples_by_line(read_records(profile));
  uint64_t total = 0;
  for (auto& [line, n] : samples) {
    total += n;
  }
  uint64_t at_call = samples[line_name("lib_calls.c", "memset")];
  ASSERT_GT(total, 50u);
  EXPECT_GE(static_cast<double>(at_call), 0.8 * static_cast<double>(total))
      << at_call << " of " << total << " samples on the memset call";
}

// Runs a loader program that dlopens a library whose hot line must be profiled.
void expect_dlopened_library_profiled(const std::string& loader, const std::string& library,
                                      const std::string& scope) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-b", "MAIN," + scope, "-o", profile, "---", loader, library});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "spun\n");
  auto samples = samples_by_line(read_records(profile));
  EXPECT_GT(samples[line_name("hot_lib.c", "hot_lib")], 100u);
}

TEST(CozRun, DlopenedLibraryInScopeIsProfiled) {
  expect_dlopened_library_profiled(fixture("dlopen_main"), fixture("libhot_lib.so"),
                                   "%libhot_lib.so");
}

// By bare name through the program's RUNPATH ($ORIGIN/plugins), which glibc resolves relative to
// dlopen's caller: the profiler must not become that caller.
TEST(CozRun, DlopenKeepsResolvingRelativeToTheProgram) {
  expect_dlopened_library_profiled(fixture("dlopen_origin"), "libhot_plugin.so",
                                   "%libhot_plugin.so");
}

TEST(CozRun, StaleSettingsInTheEnvironmentAreIgnored) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "-o", profile, "---", fixture("two_hot"), "3"}, "",
                       {{"COZ_FIXED_LINE", "nowhere.c:1"}, {"COZ_SOURCE_SCOPE", "nowhere.c"}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(samples_by_line(read_records(profile)).empty()) << r.err;
}

TEST(CozRun, SourceScopeKeepsOnlyMatchingFiles) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "-b", "MAIN,%libearly_thread.so", "-s",
                        "early_thread.c", "-o", profile, "---", fixture("threads")});
  ASSERT_EQ(r.status, 0) << r.err;
  auto samples = samples_by_line(read_records(profile));
  ASSERT_FALSE(samples.empty());
  for (auto& [line, n] : samples) {
    EXPECT_NE(line.find("early_thread.c"), std::string::npos) << line;
  }
}

TEST(CozRun, HeaderCountersCountEveryVisit) {
  TempDir dir;
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-v", "-o", dir.file("p.coz"), "---", fixture("header_client")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("progress point header progress: 4000 visits"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("latency point header latency: 4000 begins, 4000 ends"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("progress point " + program_source("header_client.c") + ":"),
            std::string::npos)
      << "COZ_PROGRESS is named after its file and line: " << r.err;
}

TEST(CozRun, HeaderWorksFromCpp) {
  TempDir dir;
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-v", "-o", dir.file("p.coz"), "---", fixture("header_client_cpp")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("progress point cpp progress: 250 visits"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("latency point cpp latency: 250 begins, 250 ends"), std::string::npos)
      << r.err;
}

TEST(CozRun, ProgramsBuiltWithDebiansCozHeaderWork) {
  std::string program = fixture("debian_header_client");
  if (access(program.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "coz-profiler's /usr/include/coz.h was not installed at build time";
  }
  TempDir dir;
  auto r = run_process({COZ_TEST_CLI, "run", "-v", "-o", dir.file("p.coz"), "---", program});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("progress point debian progress: 21 visits"), std::string::npos) << r.err;
}

TEST(CozRun, HeaderMacrosAreNoOpsWithoutTheRuntime) {
  auto r = run_process({fixture("header_client")});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "header client done\n");
}

TEST(CozRun, CozBinaryInterfaceIsCompatible) {
  TempDir dir;
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-v", "-o", dir.file("p.coz"), "---", fixture("abi_client")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "runtime found\n");
  EXPECT_NE(r.err.find("progress point legacy progress: 37 visits"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("latency point legacy latency: 37 begins, 19 ends"), std::string::npos)
      << r.err;
  auto plain = run_process({fixture("abi_client")});
  EXPECT_EQ(plain.out, "runtime absent\n");
}

TEST(CozRun, PassesThroughStdioAndExitStatus) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "-o", profile, "---", fixture("exit_status"), "7"},
                       "hello\nworld\n");
  EXPECT_EQ(r.status, 7);
  EXPECT_EQ(r.out, "hello\nworld\n");
  EXPECT_NE(r.err.find("to stderr\n"), std::string::npos);
  // The two-line summary says why a run this short gives no causal profile.
  EXPECT_NE(r.err.find("coz: profile written to " + profile +
                       ": 0 experiments this run, 0 in all\n"
                       "coz: warning: no experiment finished: the program ran "),
            std::string::npos)
      << r.err;
}

TEST(CozRun, KilledProgramGives128PlusSignalAndKeepsTheProfile) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-o", profile, "---", fixture("exit_status"), "9", "signal"});
  EXPECT_EQ(r.status, 128 + 9);
  std::vector<Record> records = read_records(profile);
  ASSERT_FALSE(records.empty()) << "the startup record was already written";
  EXPECT_EQ(records.front().kind, RecordKind::kStartup);
}

TEST(CozRun, AGoProgramIsToldItsWaitsAreNotFollowedAtStartAndInTheReport) {
  // Go's runtime parks threads with raw futex system calls that no hook sees: one line at
  // start-up, and a warning in the profile that coz report shows under its summary.
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "--experiment-length", "50ms", "--speedup-step", "50",
                        "-o", profile, "---", fixture("go_marked"), "1000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "worked 1\n");
  EXPECT_NE(r.err.find("is a Go program"), std::string::npos) << r.err;
  auto report = run_process({COZ_TEST_CLI, "report", "--min-points", "2", profile});
  EXPECT_NE(report.out.find("is a Go program"), std::string::npos) << report.out << report.err;
  // A C program is told nothing of the kind.
  auto plain =
      run_process({COZ_TEST_CLI, "run", "-o", dir.file("q.coz"), "---", fixture("two_hot"), "5"});
  EXPECT_EQ(plain.err.find("Go program"), std::string::npos) << plain.err;
}

TEST(CozRun, SaysWhichOfOpenMPsWaitsAreNotSeen) {
  // libgomp parks its threads with its own futex system calls: its regions and barriers are
  // followed through its entry points, its locks and tasks are not, and the run says so, as for
  // Go, and the profile keeps it. With OMP_WAIT_POLICY=active its threads spin where samples see
  // them, and nothing is said.
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "--experiment-length", "50ms", "-o", profile, "---",
                        fixture("barrier_loop_openmp"), "600", "openmp"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("rounds ", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("uses OpenMP (libgomp)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("OMP_WAIT_POLICY=active"), std::string::npos) << r.err;
  auto report = run_process({COZ_TEST_CLI, "report", "--min-points", "2", profile});
  EXPECT_NE(report.out.find("uses OpenMP (libgomp)"), std::string::npos)
      << report.out << report.err;
  auto active = run_process({COZ_TEST_CLI, "run", "-o", dir.file("q.coz"), "---",
                             fixture("barrier_loop_openmp"), "300", "openmp"},
                            "", {{"OMP_WAIT_POLICY", "active"}});
  EXPECT_EQ(active.status, 0) << active.err;
  EXPECT_EQ(active.err.find("OpenMP"), std::string::npos) << active.err;
}

TEST(CozRun, AcceptsDoubleDashAndTheProgramOnPath) {
  TempDir dir;
  std::string path = std::string(COZ_TEST_FIXTURES) + ":" + getenv("PATH");
  auto r = run_process({COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "--", "exit_status", "0"}, "",
                       {{"PATH", path}});
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
}  // namespace coz
