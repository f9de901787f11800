// Sampling without perf_event (docs/where-it-runs.md): where perf_event_open is refused (a seccomp
// filter returning EACCES, as a container runtime's default profile does, run by the deny_perf
// fixture; no root needed), `coz run` samples with per-thread CPU-time timers (--sampler timer),
// and its sampling thread (--sampler clock) may be asked for. With either, every feature works:
// experiments on the right line, delays, blocked samples of a waiting line, followed children,
// load amplification, sampled progress points, the sampler named in the profile and the report.
// Asking for perf there says why not, and so does --progress (hardware breakpoints are perf
// events).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::line_name;
using test::read_records;
using test::records_of;
using test::run_process;
using test::samples_by_line;
using test::TempDir;

struct Denied {
  test::ProcessResult result;
  std::string profile;
  std::vector<Record> records;
};

// `coz run OPTIONS --- PROGRAM...` with perf_event_open refused.
Denied run_denied(const TempDir& dir, std::vector<std::string> options,
                  std::vector<std::string> program) {
  Denied d;
  d.profile = dir.file("timer.coz");
  std::vector<std::string> argv = {fixture("deny_perf"), COZ_TEST_CLI, "run", "-o", d.profile};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("---");
  argv.insert(argv.end(), program.begin(), program.end());
  d.result = run_process(argv);
  if (d.result.status != 1) {
    d.records = read_records(d.profile);
  }
  return d;
}

std::string first_text(const std::vector<Record>& records, RecordKind kind, const char* key) {
  for (const Record& r : records) {
    if (r.kind == kind) {
      return r.text(key);
    }
  }
  return "";
}

uint64_t blocked_of(const std::vector<Record>& records, const std::string& line) {
  uint64_t n = 0;
  for (const Record& r : records) {
    if (r.kind == RecordKind::kSamples && r.text("location") == line && r.find("blocked")) {
      n += r.u64("blocked");
    }
  }
  return n;
}

// two_hot's 250 rounds of 4 ms in hot_a and 2 ms in hot_b (1.5 s of CPU time), sampled: each
// sample counts the periods it stands for (the kernel's tick may be longer than 1 ms), so about
// 1000 periods in hot_a and 500 in hot_b, whatever the engine; the resolution measured is written
// at the end.
void expect_two_hot_samples(const Denied& d) {
  auto samples = samples_by_line(d.records);
  uint64_t a = samples[line_name("two_hot.c", "hot_a")];
  uint64_t b = samples[line_name("two_hot.c", "hot_b")];
  EXPECT_GT(a, 500u);
  EXPECT_GT(a, b + b / 4) << "hot_a runs twice as long as hot_b";
  EXPECT_GT(b, 150u);
  bool resolution = false;
  for (const Record& r : d.records) {
    resolution = resolution || (r.kind == RecordKind::kRuntime && r.find("sampler-resolution") &&
                                r.u64("sampler-resolution") >= 1000000u);
  }
  EXPECT_TRUE(resolution) << "the runtime record carries the CPU time per signal";
}

TEST(WithoutPerf, TheTimerIsChosenAndSamplesTheRightLines) {
  TempDir dir;
  // 250 rounds of 4 ms in hot_a and 2 ms in hot_b: 1.5 s of CPU time.
  Denied d = run_denied(dir, {}, {fixture("two_hot"), "250"});
  ASSERT_EQ(d.result.status, 0) << d.result.err;
  EXPECT_EQ(d.result.out, "done 250 rounds\n");
  EXPECT_EQ(first_text(d.records, RecordKind::kStartup, "sampler"), "timer");
  EXPECT_EQ(d.result.err.find("error"), std::string::npos) << d.result.err;
  EXPECT_GE(records_of(d.profile, RecordKind::kExperiment).size(), 1u);
  expect_two_hot_samples(d);
  // The report names the sampler.
  auto report = run_process({COZ_TEST_CLI, "report", "--json", d.profile});
  EXPECT_NE(report.out.find("\"samplers\": [\n      \"timer\"\n    ]"), std::string::npos)
      << report.out << report.err;
}

// Each engine that needs no perf_event, asked for by name where perf_event is refused: the
// sampling thread (sample/clock_sampler.h) and the per-thread CPU-time timers
// (sample/timer_sampler.h).
class Engine : public testing::TestWithParam<const char*> {
 protected:
  // `coz run --sampler ENGINE OPTIONS --- PROGRAM...`, perf_event_open refused.
  Denied run(const TempDir& dir, std::vector<std::string> options,
             std::vector<std::string> program) {
    options.insert(options.begin(), {"--sampler", GetParam()});
    return run_denied(dir, options, program);
  }
};

INSTANTIATE_TEST_SUITE_P(WithoutPerf, Engine, testing::Values("clock", "timer"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

TEST_P(Engine, SamplesTheRightLines) {
  TempDir dir;
  Denied d = run(dir, {}, {fixture("two_hot"), "250"});
  ASSERT_EQ(d.result.status, 0) << d.result.err;
  EXPECT_EQ(d.result.out, "done 250 rounds\n");
  EXPECT_EQ(first_text(d.records, RecordKind::kStartup, "sampler"), GetParam());
  expect_two_hot_samples(d);
}

TEST(WithoutPerf, TheSamplingThreadIsNotTakenForTheProgramsNorPaysDelays) {
  TempDir dir;
  Denied d = run_denied(dir, {"--sampler", "clock", "--verbose"}, {fixture("two_hot"), "20"});
  ASSERT_EQ(d.result.status, 0) << d.result.err;
  // The program has one thread; the sampling thread, started before the runtime looks for the
  // threads that exist, is not one of them (it would pay delays, and sample late while it does).
  EXPECT_NE(d.result.err.find("from 1 threads (sampler: clock"), std::string::npos) << d.result.err;
  // What the sampling thread cost: its share of a core in the summary, its CPU time in the profile.
  EXPECT_NE(d.result.err.find("% of a core)"), std::string::npos) << d.result.err;
  bool cpu = false;
  for (const Record& r : d.records) {
    cpu = cpu ||
          (r.kind == RecordKind::kRuntime && r.find("sampler-cpu") && r.u64("sampler-cpu") > 0);
  }
  EXPECT_TRUE(cpu) << "the runtime record carries the sampling thread's CPU time";
}

// A thread that computes and then waits in poll() for another process: the clock engine signals
// only threads that run, and a thread about to wait lets a signal already sent land first, or
// calls off one set on its timer, so its poll is not cut short (EINTR, which poll returns whatever
// SA_RESTART says). Signalled while it waits, most samples would have been one; without the
// hand-shake before the wait, one in ten.
TEST(WithoutPerf, TheSamplingThreadNeverInterruptsAWait) {
  TempDir dir;
  Denied d = run_denied(dir, {"--sampler", "clock"}, {fixture("waits"), "poll", "1500"});
  ASSERT_EQ(d.result.status, 3) << d.result.err;
  unsigned long visits = 0, bytes = 0, interrupted = 0;
  ASSERT_EQ(sscanf(d.result.out.c_str(), "done %lu %lu %lu", &visits, &bytes, &interrupted), 3);
  EXPECT_EQ(visits, bytes);
  uint64_t samples = 0;
  for (const auto& [line, n] : samples_by_line(d.records)) {
    samples += n;
  }
  EXPECT_GT(samples, 0u) << "the thread computes between its waits: it is sampled";
  // Only a sampling thread preempted for longer than the wait's bounded spin, between deciding
  // and signalling, could still interrupt one: at most one, and one in fifty samples beyond.
  EXPECT_LE(interrupted, 1 + samples / 50) << d.result.out;
}

TEST_P(Engine, SpeedingUpALineInsertsDelays) {
  TempDir dir;
  std::string hot_a = line_name("two_hot.c", "hot_a");
  Denied d = run(dir, {"--end-to-end", "--fixed-line", hot_a, "--fixed-speedup", "50"},
                 {fixture("two_hot"), "250"});
  ASSERT_EQ(d.result.status, 0) << d.result.err;
  auto experiments = records_of(d.profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  EXPECT_EQ(experiments[0].text("selected"), hot_a);
  EXPECT_GT(experiments[0].u64("selected-samples"), 500u);
  // Half a period for each of hot_a's: about a third of the run; at least a fifth.
  EXPECT_GT(experiments[0].u64("inserted"), experiments[0].u64("elapsed") / 5);
}

TEST_P(Engine, SleepingAndReadingLinesGetBlockedSamples) {
  TempDir dir;
  Denied sleep = run(dir, {}, {fixture("waits"), "sleep", "1500"});
  ASSERT_EQ(sleep.result.status, 3) << sleep.result.err;
  EXPECT_GT(blocked_of(sleep.records, line_name("waits.c", "sleep")), 300u);
  EXPECT_EQ(blocked_of(sleep.records, line_name("waits.c", "compute")), 0u);
  // A read that waits for another process to write: longer than the gate, and the thread was
  // switched out, so it waited.
  Denied pipe = run(dir, {}, {fixture("waits"), "pipe", "1500"});
  ASSERT_EQ(pipe.result.status, 3) << pipe.result.err;
  unsigned long visits = 0, bytes = 0;
  ASSERT_EQ(sscanf(pipe.result.out.c_str(), "done %lu %lu", &visits, &bytes), 2);
  EXPECT_EQ(visits, bytes);
  EXPECT_GT(blocked_of(pipe.records, line_name("waits.c", "read")), 300u);
}

TEST_P(Engine, ForkedWorkersAreFollowedAndPayDelays) {
  TempDir dir;
  std::string work = line_name("children.c", "child-work");
  Denied d = run(dir, {"--end-to-end", "--fixed-line", work, "--fixed-speedup", "50"},
                 {fixture("children"), "fork", "1500"});
  ASSERT_EQ(d.result.status, 3) << d.result.err;
  EXPECT_EQ(d.result.out, "done 2\n");
  size_t processes = 0;
  uint64_t root = 0;
  for (const Record& r : d.records) {
    processes += r.type == "process";
    if (r.kind == RecordKind::kStartup) {
      root = r.u64("pid");
    }
  }
  EXPECT_EQ(processes, 2u);
  uint64_t child_samples = 0;
  for (const Record& r : d.records) {
    if (r.kind == RecordKind::kSamples && r.text("location") == work && r.u64("pid") != root) {
      child_samples += r.u64("count");
    }
  }
  EXPECT_GT(child_samples, 500u);
  auto experiments = records_of(d.profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  EXPECT_GT(experiments[0].u64("selected-samples"), 500u) << "the workers' samples count";
  EXPECT_GT(experiments[0].u64("inserted"), 0u);
}

// 150 children one after another, each running 2 ms of its own CPU time (300 periods in all,
// some spent reading its clock): a child that lives for less than the kernel's tick is still
// sampled, with the chance of its time over the tick's, so the children's line gets about its
// periods. Counted from the CPU time between signals alone, the timer lost what a child ran after
// its last tick: 41 of them. (The clock engine loses what ran after its last pass, as perf loses
// the last part of a period: about half a period a child, docs/where-it-runs.md.)
TEST(WithoutPerf, ShortLivedChildrenGetTheirShareOfTimerSamples) {
  TempDir dir;
  Denied d = run_denied(dir, {"--sampler", "timer", "--fixed-speedup", "0"},
                        {fixture("children"), "short", "150", "2"});
  ASSERT_EQ(d.result.status, 3) << d.result.err;
  EXPECT_EQ(d.result.out, "done 150\n");
  uint64_t periods = samples_by_line(d.records)[line_name("children.c", "short-work")];
  EXPECT_GT(periods, 150u) << "at least half the children's 300 periods";
  EXPECT_LT(periods, 450u);
}

TEST_P(Engine, LoadAmplificationReachesItsLoad) {
  TempDir dir;
  std::string work =
      "arrivals.c:" + std::to_string(test::marker_line(test::program_source("arrivals.c"), "WORK"));
  Denied d = run(dir, {"--end-to-end", "--fixed-speedup", "0", "--fixed-line", work, "--load", "3"},
                 {fixture("arrivals"), "1", "100", "2000", "1"});
  ASSERT_EQ(d.result.status, 0) << d.result.err;
  auto experiments = records_of(d.profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  EXPECT_DOUBLE_EQ(experiments[0].real("load-target"), 3.0);
  // Roughly 3, as with perf (amplification_test.cpp): arrivals are paced by the hooks and the
  // arrival threads' own periods, not by samples.
  EXPECT_GT(experiments[0].real("load"), 2.2);
  EXPECT_LT(experiments[0].real("load"), 4.5);
}

// A line's samples as progress (--sampled-progress), the way to count visits where hardware
// breakpoints (--progress) are refused: 200 requests of 1 ms of work. (How many of the work's
// samples land on its line rather than on the CPU clock it reads between chunks varies run to
// run with the clock engine, 5 to 157 of about 200, against 163-185 with the timer: an open
// question of issue 51.)
TEST_P(Engine, SampledProgressCountsTheLinesSamples) {
  TempDir dir;
  std::string work =
      "arrivals.c:" + std::to_string(test::marker_line(test::program_source("arrivals.c"), "WORK"));
  Denied d = run(
      dir,
      {"--end-to-end", "--fixed-speedup", "0", "--fixed-line", work, "--sampled-progress", work},
      {fixture("arrivals"), "1", "200", "2000", "1000"});
  ASSERT_EQ(d.result.status, 0) << d.result.err;
  uint64_t visits = 0;
  for (const Record& r : d.records) {
    if (r.kind == RecordKind::kThroughputPoint && r.text("name") == work) {
      visits += r.u64("delta");
    }
  }
  EXPECT_GT(visits, 0u) << d.result.err;
}

TEST(WithoutPerf, AskingForPerfWhereItIsRefusedSaysWhatToDo) {
  TempDir dir;
  Denied d = run_denied(dir, {"--sampler", "perf"}, {fixture("two_hot"), "1"});
  EXPECT_EQ(d.result.status, 1);
  EXPECT_NE(d.result.err.find("perf_event_paranoid is "), std::string::npos) << d.result.err;
  EXPECT_NE(d.result.err.find("--sampler timer"), std::string::npos) << d.result.err;
}

TEST(WithoutPerf, BreakpointProgressPointsSayToSampleInstead) {
  TempDir dir;
  std::string hot_a = line_name("two_hot.c", "hot_a");
  auto r = run_process({fixture("deny_perf"), COZ_TEST_CLI, "run", "-o", dir.file("bp.coz"),
                        "--progress", hot_a.substr(hot_a.rfind('/') + 1), "---", fixture("two_hot"),
                        "5"});
  EXPECT_EQ(r.out, "done 5 rounds\n") << "the program runs, unprofiled";
  EXPECT_NE(r.err.find("use --sampled-progress"), std::string::npos) << r.err;
}

TEST_P(Engine, ChosenByNameWherePerfWorks) {
  TempDir dir;
  std::string profile = dir.file("named.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "--sampler", GetParam(), "-o", profile, "---",
                        fixture("two_hot"), "50"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(first_text(read_records(profile), RecordKind::kStartup, "sampler"), GetParam());
  auto perf = run_process({COZ_TEST_CLI, "run", "--sampler", "perf", "-o", dir.file("perf.coz"),
                           "---", fixture("two_hot"), "5"});
  ASSERT_EQ(perf.status, 0) << perf.err;
  EXPECT_EQ(first_text(read_records(dir.file("perf.coz")), RecordKind::kStartup, "sampler"),
            "perf");
}

}  // namespace
}  // namespace coz
