// Off-CPU profiling under `coz run`: a line that waits (a sleep, a read from a slower process)
// gets blocked samples in proportion to its waiting, a virtual speedup of it inserts delays, the
// program's own output and exit status are unchanged, and --no-off-cpu turns it all off.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::line_name;
using test::records_of;
using test::run_process;
using test::TempDir;

// Blocked samples per line.
std::map<std::string, uint64_t> blocked_by_line(const std::string& profile) {
  std::map<std::string, uint64_t> out;
  for (const Record& r : records_of(profile, RecordKind::kSamples)) {
    if (r.find("blocked")) {
      out[r.text("location")] += r.u64("blocked");
    }
  }
  return out;
}

std::string startup_field(const std::string& profile, const std::string& key) {
  for (const Record& r : records_of(profile, RecordKind::kStartup)) {
    return r.text(key);
  }
  return "";
}

struct Waited {
  std::map<std::string, uint64_t> blocked;
  std::string out;
  std::string profile;
};

// Runs `waits MODE` for 1.5 s under coz run with `options`.
Waited run_waits(const TempDir& dir, const std::string& mode, std::vector<std::string> options) {
  Waited w;
  w.profile = dir.file(mode + ".coz");
  std::vector<std::string> argv = {COZ_TEST_CLI, "run", "-o", w.profile};
  argv.insert(argv.end(), options.begin(), options.end());
  for (const char* a : {"---", "", "", "1500"}) {
    argv.push_back(a);
  }
  argv[argv.size() - 3] = fixture("waits");
  argv[argv.size() - 2] = mode;
  auto r = run_process(argv);
  EXPECT_EQ(r.status, 3) << r.err;  // the program's own status
  w.out = r.out;
  w.blocked = blocked_by_line(w.profile);
  return w;
}

TEST(OffCpu, SleepingLineGetsBlockedSamplesForItsWaiting) {
  TempDir dir;
  Waited w = run_waits(dir, "sleep", {});
  ASSERT_EQ(w.out.compare(0, 5, "done "), 0) << w.out;
  std::string sleep_line = line_name("waits.c", "sleep");
  // About 1.5 s of the run is spent in 1 ms sleeps: one blocked sample per millisecond of it.
  // Wide bounds (the share of time asleep depends on the machine's speed), but never none and
  // never more than the run holds.
  EXPECT_GT(w.blocked[sleep_line], 300u);
  EXPECT_LT(w.blocked[sleep_line], 1700u);
  EXPECT_EQ(w.blocked[line_name("waits.c", "compute")], 0u) << "computing is not waiting";
  EXPECT_EQ(startup_field(w.profile, "off-cpu"), "calls");
}

TEST(OffCpu, ReadFromASlowerProcessIsCreditedToTheReadLine) {
  TempDir dir;
  Waited w = run_waits(dir, "pipe", {});
  unsigned long visits = 0, bytes = 0;
  ASSERT_EQ(sscanf(w.out.c_str(), "done %lu %lu", &visits, &bytes), 2) << w.out;
  EXPECT_EQ(visits, bytes) << "every read returned its byte";
  EXPECT_GT(w.blocked[line_name("waits.c", "read")], 300u);
}

TEST(OffCpu, SpeedingUpAWaitInsertsDelays) {
  TempDir dir;
  std::string sleep_line = line_name("waits.c", "sleep");
  Waited w = run_waits(dir, "sleep",
                       {"--end-to-end", "--fixed-line", sleep_line, "--fixed-speedup", "50"});
  auto experiments = records_of(w.profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  const Record& e = experiments[0];
  EXPECT_EQ(e.text("selected"), sleep_line);
  EXPECT_GT(e.u64("selected-samples"), 300u);
  // Half of each selected wait: about a quarter to a half of the run, never more than half.
  uint64_t inserted = e.u64("inserted"), elapsed = e.u64("elapsed");
  EXPECT_GT(inserted, elapsed / 5);
  EXPECT_LT(inserted, elapsed / 2 + elapsed / 20);
}

TEST(OffCpu, ChildrenOfARawCloneAreLeftAlone) {
  // A child made without fork()'s atfork handlers lacks the sampler's rings: its sleep and write
  // must not reach them (the runtime's words are on a page wiped at fork).
  TempDir dir;
  Waited w = run_waits(dir, "rawfork", {});
  unsigned long visits = 0, bytes = 0;
  ASSERT_EQ(sscanf(w.out.c_str(), "done %lu %lu", &visits, &bytes), 2) << w.out;
  EXPECT_GT(visits, 0u);
  EXPECT_EQ(visits, bytes) << "every child slept, wrote its byte and exited 0";
}

TEST(OffCpu, TurnedOffMeasuresNoWaits) {
  TempDir dir;
  Waited w = run_waits(dir, "sleep", {"--no-off-cpu"});
  EXPECT_TRUE(w.blocked.empty());
  EXPECT_EQ(startup_field(w.profile, "off-cpu"), "off");
}

}  // namespace
}  // namespace coz
