// The runtime keeps the program as it is natively across image changes and limits (issue 24):
// quick_exit, a blocked mask across exec and posix_spawn, a low descriptor limit, an address-space
// limit, and a user's own preloaded pthread_create wrapper.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::records_of;
using test::run_process;
using test::TempDir;

// `argv` under a shell's `ulimit` arguments (e.g. {"-S", "-n", "16"}).
std::vector<std::string> limited(const std::string& ulimit, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"/bin/sh", "-c", "ulimit " + ulimit + " && exec \"$@\"", "sh"});
  return argv;
}

std::vector<std::string> profiled(const TempDir& dir, std::vector<std::string> argv) {
  argv.insert(argv.begin(),
              {COZ_TEST_CLI, "run", "--experiment-length", "50ms", "-o", dir.file("p.coz"), "---"});
  return argv;
}

TEST(RuntimeReliability, QuickExitKeepsTheFinalRecordsAfterTheProgramsHandlers) {
  TempDir dir;
  auto r = run_process(profiled(dir, {fixture("runtime_limits"), "quick-exit"}));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.out, "at_quick_exit handler ran\n");
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kRuntime).empty()) << r.err;
}

class MaskAcross : public ::testing::TestWithParam<const char*> {};

TEST_P(MaskAcross, TheNewImageOrChildGetsTheMaskTheProgramSet) {
  TempDir dir;
  auto native = run_process({fixture("runtime_limits"), GetParam()});
  ASSERT_EQ(native.status, 0) << native.err;
  auto r = run_process(profiled(dir, {fixture("runtime_limits"), GetParam()}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out);
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

INSTANTIATE_TEST_SUITE_P(ExecAndSpawn, MaskAcross, ::testing::Values("exec", "spawn"));

TEST(RuntimeReliability, ALowDescriptorLimitLeavesTheProgramAllItsFiles) {
  TempDir dir;
  auto native = run_process(limited("-S -n 16", {fixture("runtime_limits"), "files"}));
  auto r = run_process(limited("-S -n 16", profiled(dir, {fixture("runtime_limits"), "files"})));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out) << r.err;  // 12 of 12, or fewer if the test inherited descriptors
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

// The same limit, hard too: no room above it. The profiler then holds no descriptor at all: the
// timer sampler (none per thread), the profile opened per block, the run's memory a file of
// /dev/shm by name, which the root removes at its end.
TEST(RuntimeReliability, ALowHardDescriptorLimitLeavesTheProgramAllItsFiles) {
  TempDir dir;
  auto native = run_process(limited("-n 16", {fixture("runtime_limits"), "files"}));
  auto r = run_process(limited("-n 16", profiled(dir, {fixture("runtime_limits"), "files"})));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out) << r.err;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
  auto startup = records_of(dir.file("p.coz"), RecordKind::kStartup);
  ASSERT_EQ(startup.size(), 1u);
  EXPECT_EQ(startup[0].text("sampler"), "timer");
}

TEST(RuntimeReliability, ADescriptorLimitWithoutRoomAboveIsSaidOnce) {
  TempDir dir;
  auto r = run_process(limited("-n 16", profiled(dir, {fixture("runtime_limits"), "files"})));
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string said = "coz: warning: the descriptor limit (ulimit -n 16)";
  size_t at = r.err.find(said);
  EXPECT_NE(at, std::string::npos) << r.err;
  // Once: by the program's runtime, not again by coz (whose own descriptors cost it nothing).
  EXPECT_EQ(r.err.find(said, at + 1), std::string::npos) << r.err;
}

// Under it, the programs a shell starts still join the shell's run (through the file by name),
// and the warning is said once in the run, not once per process.
TEST(RuntimeReliability, ALowHardDescriptorLimitFollowsChildrenAndIsSaidOncePerRun) {
  TempDir dir;
  std::string program = fixture("runtime_limits") + " files";
  auto r =
      run_process(limited("-n 16", profiled(dir, {"/bin/sh", "-c", program + "; " + program})));
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string said = "coz: warning: the descriptor limit (ulimit -n 16)";
  size_t at = r.err.find(said);
  EXPECT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(said, at + 1), std::string::npos) << r.err;
  EXPECT_EQ(records_of(dir.file("p.coz"), RecordKind::kStartup).size(), 1u) << "one run";
  size_t processes = 0;
  for (const Record& rec : test::read_records(dir.file("p.coz"))) {
    processes += rec.type == "process" ? 1 : 0;
  }
  EXPECT_EQ(processes, 2u) << r.err;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

// A descriptor near a high limit (a container's is often a million, soft and hard) made every
// process of the run carry a descriptor table that long, copied at each fork.
TEST(RuntimeReliability, AHighDescriptorLimitKeepsTheProfilersDescriptorsLow) {
  rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_max <= 4096) {  // under such a limit they go above it or into its top quarter
    GTEST_SKIP() << "hard descriptor limit " << rl.rlim_max << " is 4096 or under";
  }
  TempDir dir;
  auto r = run_process(limited("-S -n \"$(ulimit -H -n)\"",
                               profiled(dir, {fixture("runtime_limits"), "highest-fd"})));
  ASSERT_EQ(r.status, 0) << r.err;
  int highest = -1;
  ASSERT_EQ(sscanf(r.out.c_str(), "highest descriptor %d", &highest), 1) << r.out;
  EXPECT_GE(highest, 1024) << r.out;  // the profile and the perf descriptors are there
  EXPECT_LT(highest, 2048) << r.out;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

TEST(RuntimeReliability, AnAddressSpaceLimitIsToldWhatTheProfilerTakes) {
  TempDir dir;
  auto r = run_process(limited("-S -v 262144", profiled(dir, {fixture("runtime_limits"), "show"})));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("of the 256 MiB address-space limit"), std::string::npos) << r.err;
}

TEST(RuntimeReliability, TheProfilerTakesLittleAddressSpace) {
  // What a program under an address-space limit (ulimit -v) loses: the runtime (libc only: no
  // libm, and elfutils unloaded once the lines are read), its mappings, and its thread's stack
  // (1 MiB: the default 8 MiB was most of it); about 2.5 MiB, 4.8 MiB before. The profiler
  // thread's malloc arena, reserved whole (64 MiB, without access) whenever that thread first
  // allocates, is left out: the start-up warning under a low limit names it, and when it is
  // reserved varies from run to run.
  TempDir dir;
  auto native = run_process({fixture("runtime_limits"), "vmsize"});
  auto r = run_process(profiled(dir, {fixture("runtime_limits"), "vmsize"}));
  long native_kib = 0, profiled_kib = 0;
  ASSERT_EQ(sscanf(native.out.c_str(), "vmsize %ld", &native_kib), 1) << native.out;
  ASSERT_EQ(sscanf(r.out.c_str(), "vmsize %ld", &profiled_kib), 1) << r.out << r.err;
  EXPECT_LT(profiled_kib - native_kib, 3 * 1024) << native_kib << " KiB natively";
}

TEST(RuntimeReliability, AWrapperPreloadedAfterTheRuntimeIsNamed) {
  TempDir dir;
  std::string lib = fixture("libpreload_counter.so");
  // Set by hand: `coz run` puts the user's preloads first.
  auto r = run_process({fixture("runtime_limits"), "threads"}, "",
                       {{"LD_PRELOAD", std::string(COZ_TEST_RUNTIME) + ":" + lib},
                        {"COZ_OUTPUT", dir.file("p.coz")},
                        {"COZ_EXPERIMENT_LENGTH", "50ms"}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("preloaded after the profiler wraps functions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(lib + ": pthread_create"), std::string::npos) << r.err;
}

// `coz run` keeps the user's LD_PRELOAD ahead of the runtime: their wrapper sees the program's
// threads as natively, and nothing needs saying.
TEST(RuntimeReliability, CozRunKeepsTheUsersPreloadsFirst) {
  TempDir dir;
  std::string lib = fixture("libpreload_counter.so");
  auto r =
      run_process(profiled(dir, {fixture("runtime_limits"), "threads"}), "", {{"LD_PRELOAD", lib}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("4 pthread_create calls, 4 with the program's routine"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("preloaded after the profiler"), std::string::npos) << r.err;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

// Preloaded before the runtime, a user's wrapper sees the program's threads and start routines
// as natively, and the runtime still profiles every thread behind it.
TEST(RuntimeReliability, AWrapperPreloadedBeforeTheRuntimeSeesTheProgramsThreads) {
  TempDir dir;
  std::string lib = fixture("libpreload_counter.so");
  auto native = run_process({fixture("runtime_limits"), "threads"}, "", {{"LD_PRELOAD", lib}});
  EXPECT_NE(native.err.find("4 pthread_create calls, 4 with the program's routine"),
            std::string::npos)
      << native.err;
  auto r = run_process({fixture("runtime_limits"), "threads"}, "",
                       {{"LD_PRELOAD", lib + ":" + COZ_TEST_RUNTIME},
                        {"COZ_OUTPUT", dir.file("p.coz")},
                        {"COZ_EXPERIMENT_LENGTH", "50ms"}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out);
  EXPECT_NE(r.err.find("4 pthread_create calls, 4 with the program's routine"), std::string::npos)
      << r.err;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

}  // namespace
}  // namespace coz
