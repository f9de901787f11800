// The profiler never touches the program's data, signals or masks, and never loses what it
// measured silently (issue 12): programs that close every descriptor, use the profiler's signal,
// or run out of disk, under `coz run`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::read_records;
using test::records_of;
using test::run_process;
using test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
  auto r = run_process({COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("own_signal")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out);
  EXPECT_NE(r.out.find("pthread_kill: handled 4"), std::string::npos) << r.out;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kSamples).empty());
}

TEST(ProgramSignals, TheProfilersSignalWithNoHandlerStillEndsTheProgram) {
  TempDir dir;
  auto native = run_process({fixture("own_signal"), "default"});
  auto r = run_process({COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("own_signal"), "default"});
  EXPECT_EQ(r.status, native.status) << r.err;
  EXPECT_GT(r.status, 128);
  EXPECT_EQ(r.out, native.out);
  EXPECT_EQ(read_records(dir.file("p.coz")).front().kind, RecordKind::kStartup);
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kRuntime).empty()) << "final records written";
}

// A disk that fills mid-run (a 8 KiB tmpfs in a private mount namespace, half taken): the
// profile keeps whole records only, and stderr says at once, and at the end, what was lost.
TEST(DiskFull, ProfileKeepsWholeRecordsAndSaysWhatWasNotWritten) {
  TempDir dir;
  std::string small = dir.file("small");
  std::string script = "mkdir " + small + " && mount -t tmpfs -o size=8k tmpfs " + small +
                       " && head -c 4096 /dev/zero > " + small + "/filler && " + COZ_TEST_CLI +
                       " run --experiment-length 20ms -o " + small + "/p.coz --- " +
                       fixture("two_hot") + " 150; status=$?; cp " + small + "/p.coz " +
                       dir.file("out.coz") + "; exit $status";
  auto probe = run_process({"unshare", "--user", "--map-root-user", "--mount", "true"});
  if (probe.status != 0) {
    GTEST_SKIP() << "no user namespaces here: " << probe.err;
  }
  auto r = run_process({"unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done 150 rounds\n");
  std::string text = slurp(dir.file("out.coz"));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n') << "no record cut in half";
  read_records(dir.file("out.coz"));  // every line parses
  EXPECT_NE(r.err.find("could not append an experiment"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("experiments could not be written"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace coz
