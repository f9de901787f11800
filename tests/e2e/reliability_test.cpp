// The profiler never touches the program's data, signals or masks, and never loses what it
// measured silently (issue 12): programs that close every descriptor, use the profiler's signal,
// or run out of disk, under `coz run`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::read_records;
using test::records_of;
using test::run_process;
using test::slurp;
using test::TempDir;

// Programs that close every descriptor they did not open, then write a file of their own: the
// file holds exactly what they wrote, and the profile every experiment.
class ClosesEverything : public ::testing::TestWithParam<const char*> {};

TEST_P(ClosesEverything, ProgramFileAndProfileStayApart) {
  TempDir dir;
  std::string profile = dir.file("p.coz"), data = dir.file("mydata.txt");
  auto r = run_process({COZ_TEST_CLI, "run", "--experiment-length", "50ms", "-o", profile, "---",
                        fixture("close_all"), GetParam(), data, "300"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done 300 rounds\n");
  std::string expected;
  for (int i = 0; i < 300; i++) {
    expected += "round " + std::to_string(i) + "\n";
  }
  std::string written = slurp(data);
  if (std::string(GetParam()) == "dup2") {
    // It wrote once through each descriptor it found open (the profiler's, moved aside first).
    size_t via = 0;
    for (size_t at = 0; (at = written.find("via dup\n", at)) != std::string::npos; at += 8) {
      via++;
    }
    EXPECT_GE(via, 2u) << "the profile and the sampler's descriptors were there to dup2 onto";
    written = written.substr(via * 8);
  }
  EXPECT_EQ(written, expected) << "the program's file holds only what it wrote";
  auto experiments = records_of(profile, RecordKind::kExperiment);
  EXPECT_GE(experiments.size(), 5u) << r.err;
  EXPECT_FALSE(records_of(profile, RecordKind::kSamples).empty()) << "sampling went on";
}

INSTANTIATE_TEST_SUITE_P(Modes, ClosesEverything,
                         ::testing::Values("close_range", "closefrom", "loop", "dup2"));

TEST(ProgramSignals, HandlerAndMasksOfTheProfilersSignalWorkAsWithoutIt) {
  TempDir dir;
  auto native = run_process({fixture("own_signal")});
  ASSERT_EQ(native.status, 0) << native.err;
  auto r =
      run_process({COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("own_signal")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out);
  EXPECT_NE(r.out.find("pthread_kill: handled 4"), std::string::npos) << r.out;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kSamples).empty());
}

TEST(ProgramSignals, AMasterWaitingForItsChildrenInSigsuspendSeesEachOne) {
  // A sample and the program's SIGCHLD could end one wait; the wait was then resumed as if only
  // the sample had, and a master whose children were all reaped stayed suspended.
  TempDir dir;
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("suspend_children"), "3000"});
  EXPECT_EQ(r.status, 0) << r.err;  // 142: the fixture's alarm ended a wait that never returned
  long rounds = 0;
  EXPECT_EQ(sscanf(r.out.c_str(), "done %ld", &rounds), 1) << r.out;
  EXPECT_GT(rounds, 0);
}

TEST(ProgramSignals, TheProfilersSignalWithNoHandlerStillEndsTheProgram) {
  TempDir dir;
  auto native = run_process({fixture("own_signal"), "default"});
  auto r = run_process(
      {COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("own_signal"), "default"});
  EXPECT_EQ(r.status, native.status) << r.err;
  EXPECT_GT(r.status, 128);
  EXPECT_EQ(r.out, native.out);
  EXPECT_EQ(read_records(dir.file("p.coz")).front().kind, RecordKind::kStartup);
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kRuntime).empty())
      << "final records written";
}

// A disk that fills mid-run (a 8 KiB tmpfs in a private mount namespace, half taken): the
// profile keeps whole records only, and stderr says at once, and at the end, what was lost.
TEST(DiskFull, ProfileKeepsWholeRecordsAndSaysWhatWasNotWritten) {
  TempDir dir;
  std::string small = dir.file("small");
  std::string script = "mkdir " + small + " && mount -t tmpfs -o size=8k tmpfs " + small +
                       " && head -c 4096 /dev/zero > " + small + "/filler && " + COZ_TEST_CLI +
                       " run --experiment-length 10ms -o " + small + "/p.coz --- " +
                       fixture("two_hot") + " 400; status=$?; cp " + small + "/p.coz " +
                       dir.file("out.coz") + "; exit $status";
  auto probe = run_process({"unshare", "--user", "--map-root-user", "--mount", "true"});
  if (probe.status != 0) {
    GTEST_SKIP() << "no user namespaces here: " << probe.err;
  }
  auto r = run_process({"unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done 400 rounds\n");
  std::string text = slurp(dir.file("out.coz"));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n') << "no record cut in half";
  read_records(dir.file("out.coz"));  // every line parses
  EXPECT_NE(r.err.find("could not append an experiment"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("experiments could not be written"), std::string::npos) << r.err;
}

// Starts argv with stdout and stderr to files; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  pid_t pid = fork();
  if (pid == 0) {
    freopen(out.c_str(), "w", stdout);
    freopen(err.c_str(), "w", stderr);
    test::exec_or_exit(argv);
  }
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

TEST(CozRunSignals, SigintSentToCozAloneReachesTheProgram) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  pid_t coz = spawn({COZ_TEST_CLI, "run", "--experiment-length", "50ms", "-o", profile, "---",
                     fixture("two_hot"), "600"},  // 3.6 s of CPU time
                    dir.file("out"), dir.file("err"));
  usleep(1500 * 1000);
  kill(coz, SIGINT);  // to coz only, not to its process group
  EXPECT_EQ(wait_status(coz), 128 + SIGINT) << slurp(dir.file("err"));
  EXPECT_EQ(slurp(dir.file("out")), "") << "the program was stopped, not left to finish";
  EXPECT_FALSE(records_of(profile, RecordKind::kExperiment).empty());
  EXPECT_FALSE(records_of(profile, RecordKind::kRuntime).empty()) << "final records written";
}

TEST(CozRunRuns, StopsAtAFailedRunUnlessKeepGoing) {
  TempDir dir;
  auto r = run_process({COZ_TEST_CLI, "run", "--runs", "3", "-o", dir.file("a.coz"), "---",
                        fixture("exit_status"), "3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("remaining 2 runs were skipped; --keep-going"), std::string::npos) << r.err;
  EXPECT_EQ(records_of(dir.file("a.coz"), RecordKind::kStartup).size(), 1u);

  r = run_process({COZ_TEST_CLI, "run", "--runs", "3", "--keep-going", "-o", dir.file("b.coz"),
                   "---", fixture("exit_status"), "3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(records_of(dir.file("b.coz"), RecordKind::kStartup).size(), 3u) << r.err;
}

TEST(CozRunRuns, ParallelRunsIntoOneFileEachCountTheirOwn) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  std::vector<std::string> argv = {COZ_TEST_CLI, "run", "--experiment-length", "30ms", "-o",
                                   profile,      "---", fixture("two_hot"),    "60"};
  pid_t a = spawn(argv, dir.file("out_a"), dir.file("err_a"));
  pid_t b = spawn(argv, dir.file("out_b"), dir.file("err_b"));
  ASSERT_EQ(wait_status(a), 0);
  ASSERT_EQ(wait_status(b), 0);
  auto this_run = [](const std::string& err) {
    size_t at = err.find(" experiments this run");
    size_t start = err.rfind(' ', at - 1);
    return at == std::string::npos ? -1 : std::stoi(err.substr(start + 1, at - start - 1));
  };
  int na = this_run(slurp(dir.file("err_a"))), nb = this_run(slurp(dir.file("err_b")));
  int total = static_cast<int>(records_of(profile, RecordKind::kExperiment).size());
  EXPECT_GT(na, 0) << slurp(dir.file("err_a"));
  EXPECT_GT(nb, 0) << slurp(dir.file("err_b"));
  EXPECT_EQ(na + nb, total);
}

TEST(CozRunPreflight, SetuidProgramIsRefusedWithAReason) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a copy to another user";
  }
  TempDir dir;
  std::string copy = dir.file("setuid_prog");
  ASSERT_EQ(system(("cp " + fixture("two_hot") + " " + copy + " && chown 65534 " + copy +
                    " && chmod u+s,a+rx " + copy)
                       .c_str()),
            0);
  auto r = run_process({COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", copy, "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "") << "refused before running";
  EXPECT_NE(r.err.find("set-user-ID"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chmod u-s"), std::string::npos) << r.err;
}

TEST(CozRunPreflight, TooManyProgressPointsAreRefusedBeforeTheProgramStarts) {
  TempDir dir;
  std::vector<std::string> argv = {COZ_TEST_CLI, "run", "-o", dir.file("p.coz")};
  for (int i = 1; i <= 5; i++) {
    argv.push_back("--progress");
    argv.push_back("two_hot.c:" + std::to_string(i));
  }
  argv.insert(argv.end(), {"---", fixture("two_hot"), "1"});
  auto r = run_process(argv);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("at most 4 --progress points"), std::string::npos) << r.err;
}

TEST(CozRunPreflight, AFifoAsTheProfileIsRefusedNotWaitedOn) {
  TempDir dir;
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  auto r = run_process(
      {"timeout", "20", COZ_TEST_CLI, "run", "-o", fifo, "---", fixture("two_hot"), "1"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("it is a FIFO, not a file; choose another file with -o"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace coz
