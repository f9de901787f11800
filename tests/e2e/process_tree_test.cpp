// Process trees under `coz run` (docs/process-trees.md): forked and spawned children are
// sampled and take part in the root's experiments (their progress points count, a speedup of a
// line they run inserts delays), many short children and a daemon leave the program's output and
// status unchanged, and --no-follow-children leaves children alone. A root without lines of its
// own (a shell) coordinates one run whose lines come from the programs it starts.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::line_name;
using test::read_records;
using test::records_of;
using test::run_process;
using test::TempDir;

struct Tree {
  std::string out;
  std::string err;
  std::string profile;
  std::vector<Record> all;
  uint64_t root_pid = 0;
  std::vector<const Record*> processes;  // `process` records
};

// `coz run -o PROFILE OPTIONS --- PROGRAM...`, which must exit with `status`, and its profile.
Tree run_tree(const std::string& profile, const std::vector<std::string>& options,
              const std::vector<std::string>& program, int status) {
  Tree t;
  t.profile = profile;
  std::vector<std::string> argv = {COZ_TEST_CLI, "run", "-o", t.profile};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("---");
  argv.insert(argv.end(), program.begin(), program.end());
  auto r = run_process(argv);
  EXPECT_EQ(r.status, status) << r.err;  // the program's own status
  t.out = r.out;
  t.err = r.err;
  t.all = read_records(t.profile);
  for (const Record& rec : t.all) {
    if (rec.kind == RecordKind::kStartup) {
      t.root_pid = rec.u64("pid");
    } else if (rec.type == "process") {
      t.processes.push_back(&rec);
    }
  }
  return t;
}

Tree run_children(const TempDir& dir, std::vector<std::string> args,
                  std::vector<std::string> options = {}) {
  args.insert(args.begin(), fixture("children"));
  return run_tree(dir.file("tree.coz"), options, args, 3);
}

// Visits of the workers' progress point over the profile's experiments.
uint64_t child_jobs(const Tree& t) {
  uint64_t visits = 0;
  for (const Record& r : records_of(t.profile, RecordKind::kThroughputPoint)) {
    visits += r.text("name") == "child-jobs" ? r.u64("delta") : 0;
  }
  return visits;
}

// Samples of `line` taken by processes other than the root.
uint64_t child_samples(const Tree& t, const std::string& line) {
  uint64_t n = 0;
  for (const Record& r : t.all) {
    if (r.kind == RecordKind::kSamples && r.text("location") == line &&
        r.u64("pid") != t.root_pid) {
      n += r.u64("count");
    }
  }
  return n;
}

TEST(ProcessTree, ForkedWorkersAreSampledAndCountTheirProgress) {
  TempDir dir;
  std::string work = line_name("children.c", "child-work");
  Tree t = run_children(dir, {"fork", "1500"},
                        {"--end-to-end", "--fixed-line", work, "--fixed-speedup", "50"});
  EXPECT_EQ(t.out, "done 2\n");
  ASSERT_EQ(t.processes.size(), 2u);
  for (const Record* p : t.processes) {
    EXPECT_EQ(p->u64("parent"), t.root_pid);
    EXPECT_NE(p->u64("pid"), t.root_pid);
  }
  // Two workers spinning 1.5 s on two cores: far more than a few hundred samples, all in them.
  EXPECT_GT(child_samples(t, work), 500u);
  auto experiments = records_of(t.profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  EXPECT_EQ(experiments[0].text("selected"), work);
  EXPECT_GT(experiments[0].u64("selected-samples"), 500u) << "the workers' samples count";
  // Every selected sample is worth half a period: the delays the workers inserted.
  EXPECT_GT(experiments[0].u64("inserted"), experiments[0].u64("elapsed") / 10);
  uint64_t visits = child_jobs(t);
  EXPECT_GT(visits, 100u) << "the workers' progress point counts in the root's experiment";
}

TEST(ProcessTree, SpawnedProgramsJoinTheRun) {
  TempDir dir;
  Tree t = run_children(dir, {"spawn", "1500"});
  EXPECT_EQ(t.out, "done 2\n");
  ASSERT_EQ(t.processes.size(), 2u) << "the forked worker and the spawned one";
  std::set<std::string> programs;
  for (const Record* p : t.processes) {
    programs.insert(p->text("program"));
  }
  EXPECT_GT(child_samples(t, line_name("children.c", "child-work")), 500u);
}

TEST(ProcessTree, RequestsBegunInOneProcessAndEndedInAnotherHaveALatency) {
  TempDir dir;
  Tree t = run_children(dir, {"latency", "1500"});
  EXPECT_EQ(t.out, "done 1\n");
  uint64_t arrivals = 0, departures = 0, windows = 0;
  for (const Record& r : records_of(t.profile, RecordKind::kLatencyPoint)) {
    EXPECT_EQ(r.text("name"), "request");
    arrivals += r.u64("arrivals");
    departures += r.u64("departures");
    windows++;
  }
  EXPECT_GT(departures, 100u) << "the worker's COZ_END counts with the parent's COZ_BEGIN";
  // Each record counts one experiment's window. One request is in flight at a time, so a window
  // sees at most one departure whose arrival came before it (in the cool-off between two).
  EXPECT_LE(departures, arrivals + windows);
  EXPECT_GE(departures + 2 * t.processes.size() + 10, arrivals);
}

TEST(ProcessTree, AThousandShortChildrenLeaveOutputAndStatusAlone) {
  TempDir dir;
  Tree t = run_children(dir, {"many", "1000"});
  EXPECT_EQ(t.out, "done 1000\n") << "every child exited with its own status";
  EXPECT_EQ(t.processes.size(), 1000u);
}

TEST(ProcessTree, ADaemonWithEveryDescriptorClosedStillWritesItsSamples) {
  TempDir dir;
  std::string marker = dir.file("daemon-done");
  Tree t = run_children(dir, {"daemon", "800", marker});
  EXPECT_EQ(t.out, "done 1\n");
  // The daemon outlives the run's root: wait for it (its work is 0.8 s), then for its records.
  struct stat st;
  for (int i = 0; i < 100 && stat(marker.c_str(), &st) != 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(stat(marker.c_str(), &st), 0) << "the daemon ran to its end";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  t.all = read_records(t.profile);
  EXPECT_GT(child_samples(t, line_name("children.c", "child-work")), 100u);
}

TEST(ProcessTree, TurnedOffLeavesChildrenUnprofiled) {
  TempDir dir;
  Tree t = run_children(dir, {"spawn", "500"}, {"--no-follow-children"});
  EXPECT_EQ(t.out, "done 2\n");
  EXPECT_TRUE(t.processes.empty());
  EXPECT_EQ(child_samples(t, line_name("children.c", "child-work")), 0u);
}

// `sh -c "children ARGS; true"` (the `true` keeps the shell from exec'ing the program: it forks,
// waits and stays the root) under coz run with `options`.
Tree run_wrapped(const TempDir& dir, const std::string& args, std::vector<std::string> options) {
  return run_tree(dir.file("wrapped.coz"), options,
                  {"/bin/sh", "-c", fixture("children") + " " + args + "; true"}, 0);
}

TEST(ProcessTree, AShellWithoutLinesCoordinatesTheRunOfThePrograms) {
  TempDir dir;
  std::string work = line_name("children.c", "child-work");
  // The line is the workers', resolved by the processes that have it (the shell has no lines).
  Tree t = run_wrapped(dir, "fork 1500",
                       {"--end-to-end", "--fixed-line",
                        "children.c:" + work.substr(work.rfind(':') + 1), "--fixed-speedup", "50"});
  EXPECT_EQ(t.out, "done 2\n");
  EXPECT_EQ(t.processes.size(), 3u) << "the program the shell started and its two workers";
  EXPECT_GT(child_samples(t, work), 500u);
  auto experiments = records_of(t.profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u) << "one run, one experiment, run by the shell";
  EXPECT_EQ(experiments[0].text("selected"), work);
  EXPECT_GT(experiments[0].u64("selected-samples"), 500u);
  uint64_t visits = child_jobs(t);
  EXPECT_GT(visits, 100u) << "the workers' progress counts in the shell's experiment";
}

TEST(ProcessTree, TwoProgramsAShellStartsAreOneRun) {
  TempDir dir;
  std::string children = fixture("children");
  Tree t =
      run_tree(dir.file("two.coz"), {"--end-to-end"},
               {"/bin/sh", "-c", children + " fork 1500 & " + children + " fork 1500; wait"}, 0);
  EXPECT_EQ(t.out, "done 2\ndone 2\n");
  EXPECT_EQ(records_of(t.profile, RecordKind::kStartup).size(), 1u) << "one run, not one each";
  EXPECT_GE(t.processes.size(), 6u) << "both programs and their four workers";
  uint64_t visits = child_jobs(t);
  EXPECT_GT(visits, 200u) << "both programs' workers count in the one experiment";
}

TEST(ProcessTree, AShellWithoutLinesRunsExperimentsOnTheProgramsLines) {
  TempDir dir;
  Tree t = run_wrapped(dir, "fork 1500", {"--experiment-length", "100ms"});
  auto experiments = records_of(t.profile, RecordKind::kExperiment);
  ASSERT_GE(experiments.size(), 2u);
  for (const Record& e : experiments) {
    EXPECT_NE(e.text("selected").find("children.c:"), std::string::npos) << e.text("selected");
  }
}

// elfutils is loaded only where an object may have debug information, and unloaded once the lines
// are read (line/dwarf_on_demand.h). The loader's own account (LD_DEBUG=files) names the module
// in one process of the run, the program with debug information, loaded and finished there; not
// in the shell, `true` or the program's forked workers.
TEST(ProcessTree, ElfutilsIsLoadedOnlyWhereLinesAreReadAndUnloadedAfter) {
  TempDir dir;
  // The shell and /bin/true, without the build id and debug link by which a machine with their
  // debug files installed would find lines for them.
  std::string sh = dir.file("sh"), no_op = dir.file("true");
  std::string copy = "cp /bin/sh '" + sh + "' && cp /bin/true '" + no_op + "' && objcopy " +
                     "--remove-section=.note.gnu.build-id --remove-section=.gnu_debuglink '" + sh +
                     "' && objcopy --remove-section=.note.gnu.build-id " +
                     "--remove-section=.gnu_debuglink '" + no_op + "'";
  ASSERT_EQ(system(copy.c_str()), 0) << copy;
  auto r = run_process({COZ_TEST_CLI, "run", "--end-to-end", "-o", dir.file("p.coz"), "---", sh,
                        "-c", fixture("children") + " fork 300 >/dev/null; " + no_op},
                       "", {{"LD_DEBUG", "files"}});
  EXPECT_EQ(r.status, 0) << r.err;
  std::set<long> loaded, finished;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    long pid = strtol(line.c_str(), nullptr, 10);
    if (line.find("libcoz-dwarf.so [0];  dynamically loaded") != std::string::npos) {
      loaded.insert(pid);
    } else if (line.find("calling fini: ") != std::string::npos &&
               line.find("libcoz-dwarf.so") != std::string::npos) {
      finished.insert(pid);
    }
  }
  EXPECT_EQ(loaded.size(), 1u) << r.err;
  EXPECT_EQ(finished, loaded) << r.err;
}

TEST(ProcessTree, NoProcessWithLinesIsSaidAtTheEnd) {
  TempDir dir;
  auto r = run_process({COZ_TEST_CLI, "run", "-o", dir.file("none.coz"), "---", "/bin/sh", "-c",
                        fixture("fixture_nodebug") + "; true"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("no process of the run had lines to profile"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-g"), std::string::npos) << r.err;
}

// PID namespaces need CAP_SYS_ADMIN (unshare -p): skipped where they cannot be made.
bool can_unshare_pids() {
  return run_process({"unshare", "-p", "-f", "true"}).status == 0;
}

TEST(ProcessTree, AChildInAnotherPidNamespaceJoinsAndLeavesTheRootsExperimentsAlone) {
  if (!can_unshare_pids()) {
    GTEST_SKIP() << "unshare -p needs CAP_SYS_ADMIN";
  }
  TempDir dir;
  Tree t =
      run_tree(dir.file("ns.coz"), {"--experiment-length", "100ms"},
               {"/bin/sh", "-c", "unshare -p -f " + fixture("children") + " fork 1500; true"}, 0);
  EXPECT_EQ(t.out, "done 2\n");
  EXPECT_GE(t.processes.size(), 3u) << "the program in the namespace and its two workers";
  EXPECT_GT(child_samples(t, line_name("children.c", "child-work")), 500u);
  // Its root's pid names nothing in there: it must not take the root for gone.
  EXPECT_EQ(t.err.find("has gone"), std::string::npos) << t.err;
  EXPECT_GE(records_of(t.profile, RecordKind::kExperiment).size(), 5u);
}

TEST(ProcessTree, AChildThatCannotReachTheRunThroughItsProcSaysWhy) {
  if (!can_unshare_pids()) {
    GTEST_SKIP() << "unshare -p needs CAP_SYS_ADMIN";
  }
  TempDir dir;
  auto r = run_process({COZ_TEST_CLI, "run", "-o", dir.file("ns.coz"), "---", "/bin/sh", "-c",
                        "unshare -p -f --mount-proc " + fixture("children") + " fork 300; true"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done 2\n");
  EXPECT_NE(r.err.find("another PID namespace"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace coz
