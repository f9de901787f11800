// Every way `coz run` can be misused or refused: a one-line error that says what to do, the right
// exit status, and (where the program did run) the program's own behaviour intact.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "test_support.h"

namespace coz {
namespace {

using test::fixture;
using test::program_source;
using test::run_process;
using test::TempDir;

// The single line coz printed, checked to be exactly one "coz run: error: ..." line.
std::string only_error_line(const test::ProcessResult& r) {
  EXPECT_EQ(r.err.rfind("coz run: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing ran: " << r.out;
  return r.err;
}

class CozRunErrors : public ::testing::Test {
 protected:
  std::string profile() const { return dir_.file("p.coz"); }
  test::ProcessResult coz(std::vector<std::string> args) {
    std::vector<std::string> argv = {COZ_TEST_CLI, "run", "-o", profile()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  }
  bool profile_exists() const {
    struct stat st;
    return stat(profile().c_str(), &st) == 0;
  }
  TempDir dir_;
};

TEST_F(CozRunErrors, ProgramNotFound) {
  auto r = coz({"---", dir_.file("no-such-program")});
  EXPECT_EQ(r.status, 127);
  EXPECT_NE(only_error_line(r).find("not found"), std::string::npos);
  EXPECT_FALSE(profile_exists());
}

TEST_F(CozRunErrors, ProgramNotOnPath) {
  auto r = coz({"---", "no-such-program-anywhere"});
  EXPECT_EQ(r.status, 127);
  EXPECT_NE(only_error_line(r).find("not found on PATH"), std::string::npos);
}

TEST_F(CozRunErrors, ProgramNotExecutable) {
  auto r = coz({"---", program_source("fixture.c")});
  EXPECT_EQ(r.status, 126);
  EXPECT_NE(only_error_line(r).find("chmod +x"), std::string::npos);
  auto d = coz({"---", dir_.path()});
  EXPECT_EQ(d.status, 126);
  EXPECT_NE(only_error_line(d).find("directory"), std::string::npos);
}

TEST_F(CozRunErrors, NoDebugInformation) {
  // A program that starts no other (it imports no fork, exec, posix_spawn, system or popen):
  // nothing else could bring lines, so it is said before the run. (A shell or a build driver may
  // start programs that have them: process_tree_test.cpp.)
  auto r = coz({"---", fixture("fixture_nodebug")});
  EXPECT_EQ(r.status, 1);
  std::string e = only_error_line(r);
  EXPECT_NE(e.find("no debug information"), std::string::npos) << e;
  EXPECT_NE(e.find("-g"), std::string::npos) << e;
  EXPECT_FALSE(profile_exists());
}

TEST_F(CozRunErrors, SourceScopeMatchesNothing) {
  auto r = coz({"-s", "%/nowhere/%", "---", fixture("two_hot")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(only_error_line(r).find("--source-scope %/nowhere/%"), std::string::npos);
}

TEST_F(CozRunErrors, StaticallyLinkedProgram) {
  auto r = coz({"---", fixture("static_prog")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(only_error_line(r).find("statically linked"), std::string::npos);
}

TEST_F(CozRunErrors, PerfEventAskedForButUnavailable) {
  // By default the timer sampler runs instead (without_perf_test.cpp); asked for by name, perf
  // is an error that says why and what to do.
  std::vector<std::string> argv = {
      fixture("deny_perf"), COZ_TEST_CLI, "run", "--sampler", "perf", "-o", profile(), "---",
      fixture("two_hot"),   "1"};
  auto r = run_process(argv);
  EXPECT_EQ(r.status, 1);
  std::string e = only_error_line(r);
  EXPECT_NE(e.find("perf_event_open"), std::string::npos) << e;
  EXPECT_NE(e.find("perf_event_paranoid is "), std::string::npos) << e;
}

TEST_F(CozRunErrors, RuntimeRefusedPerfEventStillRunsTheProgram) {
  // Preloaded without the CLI's checks: the program must behave exactly as it would alone.
  auto r = run_process(
      {fixture("deny_perf"), fixture("exit_status"), "5"}, "data\n",
      {{"LD_PRELOAD", COZ_TEST_RUNTIME}, {"COZ_OUTPUT", profile()}, {"COZ_SAMPLER", "perf"}});
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.out, "data\n");
  EXPECT_NE(r.err.find("coz: error: perf_event_open failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("running the program without profiling"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("to stderr\n"), std::string::npos);
}

TEST_F(CozRunErrors, RuntimeRefusedPerfEventSamplesWithTimers) {
  auto r = run_process({fixture("deny_perf"), fixture("exit_status"), "5"}, "data\n",
                       {{"LD_PRELOAD", COZ_TEST_RUNTIME}, {"COZ_OUTPUT", profile()}});
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.out, "data\n");
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("to stderr\n"), std::string::npos);
}

TEST_F(CozRunErrors, OutputNotWritable) {
  std::vector<std::string> argv = {
      COZ_TEST_CLI, "run", "-o", dir_.file("missing/dir/p.coz"), "---", fixture("two_hot"), "1"};
  auto r = run_process(argv);
  EXPECT_EQ(r.status, 1);
  std::string e = only_error_line(r);
  EXPECT_NE(e.find("cannot write the profile to"), std::string::npos) << e;
  EXPECT_NE(e.find("-o"), std::string::npos) << e;
  argv[3] = dir_.path();
  auto d = run_process(argv);
  EXPECT_EQ(d.status, 1);
  EXPECT_NE(only_error_line(d).find("is a directory"), std::string::npos);
}

TEST_F(CozRunErrors, MalformedOptions) {
  auto r = coz({"--fixed-speedup", "200", "---", fixture("two_hot")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(only_error_line(r).find("--fixed-speedup '200'"), std::string::npos);
  auto s = coz({"--sampling-period", "soon", "---", fixture("two_hot")});
  EXPECT_EQ(s.status, 2);
  only_error_line(s);
  auto m = coz({fixture("two_hot")});
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(only_error_line(m).find("put --- before the program"), std::string::npos);
}

TEST_F(CozRunErrors, FixedLineWithoutCodeRunsUnprofiled) {
  auto r = coz({"--fixed-line", "two_hot.c:1", "---", fixture("two_hot"), "1"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "done 1 rounds\n");
  EXPECT_NE(r.err.find("--fixed-line two_hot.c:1 has no code in scope"), std::string::npos)
      << r.err;
}

TEST_F(CozRunErrors, NoProgressPointIsReported) {
  auto r = coz({"---", fixture("exit_status"), "0"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("coz: warning: no progress point was visited"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("COZ_PROGRESS"), std::string::npos);
  EXPECT_TRUE(profile_exists()) << "the profile is still written";
}

TEST(CozCli, UnknownCommandAndHelp) {
  auto r = run_process({COZ_TEST_CLI, "frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
  auto h = run_process({COZ_TEST_CLI, "run", "--help"});
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.out.find("--fixed-speedup"), std::string::npos);
}

}  // namespace
}  // namespace coz
