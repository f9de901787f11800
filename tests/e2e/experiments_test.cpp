// Under the real runtime: synchronisation-heavy programs behave exactly as without the profiler
// and their profiles hold experiments; fixed line, fixed speedup and end-to-end work alone and
// together; every way of exiting leaves the completed experiments and the final records.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::line_name;
using test::marker_line;
using test::program_source;
using test::read_records;
using test::records_of;
using test::run_process;
using test::TempDir;

class SameBehaviour : public ::testing::TestWithParam<const char*> {};

TEST_P(SameBehaviour, OutputAndStatusMatchAndExperimentsRun) {
  std::string program = fixture(GetParam());
  auto plain = run_process({program});
  ASSERT_EQ(plain.status, 0) << plain.err;
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto profiled = run_process(
      {COZ_TEST_CLI, "run", "--experiment-length", "50ms", "-o", profile, "---", program});
  EXPECT_EQ(profiled.status, plain.status) << profiled.err;
  EXPECT_EQ(profiled.out, plain.out);
  EXPECT_GE(records_of(profile, RecordKind::kExperiment).size(), 1u) << profiled.err;
  EXPECT_EQ(records_of(profile, RecordKind::kRuntime).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Programs, SameBehaviour,
                         ::testing::Values("sync_mutex", "sync_pipeline", "sync_sem_barrier",
                                           "sync_timed", "custom_alloc", "signals", "two_hot",
                                           "futex_handoff"));

TEST(Experiments, RecordsCarryTheirFields) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  // Three runs of 50 ms experiments, none of them baselines: at least a handful of experiments,
  // each drawing one of 20 speedups, so two alike by chance are likely but all alike is not
  // (with the default half of baselines, three experiments were all 0% one run in eight).
  auto r =
      run_process({COZ_TEST_CLI, "run", "--experiment-length", "50ms", "--runs", "3",
                   "--zero-speedup-share", "0", "-o", profile, "---", fixture("sync_pipeline")});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<Record> all;
  std::vector<ParseError> errors;
  ASSERT_TRUE(read_profile(profile, &all, &errors));
  std::set<std::string> speedups;
  for (size_t i = 0; i < all.size(); i++) {
    if (all[i].kind != RecordKind::kExperiment) {
      continue;
    }
    const Record& e = all[i];
    speedups.insert(e.text("speedup"));
    EXPECT_NE(e.find("selected"), nullptr);
    EXPECT_LE(e.u64("duration"), e.u64("elapsed"));
    // The time taken off is what the threads that made the progress took of the delays inserted;
    // what they still owed at the end (`owed`) never lengthened it (progress_delays.h). A consumer
    // blocked through a short experiment may have taken none of them.
    uint64_t owed = e.find("owed") ? e.u64("owed") : 0;
    ASSERT_LE(owed, e.u64("inserted"));
    EXPECT_EQ(e.u64("elapsed") - e.u64("duration"),
              std::min(e.u64("elapsed"), e.u64("inserted") - owed));
    if (e.u64("delay-size") != 0) {
      EXPECT_EQ(e.u64("delays"), e.u64("inserted") / e.u64("delay-size"));
    }
    EXPECT_EQ(e.u64("delay-size"), static_cast<uint64_t>(e.real("speedup") * 1000000 + 0.5));
    ASSERT_LT(i + 1, all.size());
    EXPECT_EQ(all[i + 1].kind, RecordKind::kThroughputPoint) << "each experiment lists its points";
    EXPECT_EQ(all[i + 1].text("name"), "consumed");
  }
  EXPECT_GE(speedups.size(), 2u) << "speedups are drawn at random";
}

TEST(Experiments, FixedLineAndSpeedupEndToEnd) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  std::string hot_b =
      "two_hot.c:" + std::to_string(marker_line(program_source("two_hot.c"), "hot_b"));
  auto r = run_process({COZ_TEST_CLI, "run", "--end-to-end", "--fixed-line", hot_b,
                        "--fixed-speedup", "50", "-o", profile, "---", fixture("two_hot"), "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto experiments = records_of(profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  const Record& e = experiments[0];
  EXPECT_EQ(e.text("selected"), line_name("two_hot.c", "hot_b"));
  EXPECT_EQ(e.text("speedup"), "0.50");
  EXPECT_GT(e.u64("selected-samples"), 20u);
  // One thread: it runs the line itself, so it never pauses, but every selected sample counts
  // as a delay the program was virtually spared.
  EXPECT_EQ(e.u64("delays"), e.u64("selected-samples"));
  auto points = records_of(profile, RecordKind::kThroughputPoint);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].u64("delta"), 20u);
}

TEST(Experiments, FixedLineAloneSelectsOnlyThatLine) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  std::string hot_a =
      "two_hot.c:" + std::to_string(marker_line(program_source("two_hot.c"), "hot_a"));
  auto r = run_process({COZ_TEST_CLI, "run", "--fixed-line", hot_a, "--experiment-length", "30ms",
                        "-o", profile, "---", fixture("two_hot"), "40"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto experiments = records_of(profile, RecordKind::kExperiment);
  ASSERT_GE(experiments.size(), 3u);
  for (const Record& e : experiments) {
    EXPECT_EQ(e.text("selected"), line_name("two_hot.c", "hot_a"));
  }
}

TEST(Experiments, FixedSpeedupAloneUsesOnlyThatSpeedup) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "--fixed-speedup", "25", "--experiment-length", "30ms",
                        "-o", profile, "---", fixture("two_hot"), "40"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto experiments = records_of(profile, RecordKind::kExperiment);
  ASSERT_GE(experiments.size(), 3u);
  for (const Record& e : experiments) {
    EXPECT_EQ(e.text("speedup"), "0.25");
  }
}

TEST(Experiments, EndToEndAloneIsOneExperiment) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process(
      {COZ_TEST_CLI, "run", "--end-to-end", "-o", profile, "---", fixture("two_hot"), "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(records_of(profile, RecordKind::kExperiment).size(), 1u);
}

TEST(Experiments, EndToEndBaselineWithoutAmplificationTestsASampledLine) {
  // Only load amplification alone runs under no line; a plain 0% run is some line's baseline.
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "--end-to-end", "--fixed-speedup", "0", "-o", profile,
                        "---", fixture("two_hot"), "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto experiments = records_of(profile, RecordKind::kExperiment);
  ASSERT_EQ(experiments.size(), 1u);
  EXPECT_NE(experiments[0].text("selected").find("two_hot.c:"), std::string::npos)
      << experiments[0].text("selected");
}

TEST(Experiments, MaskedThreadIsStillSampled) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "-o", profile, "---", fixture("signals")});
  ASSERT_EQ(r.status, 0) << r.err;
  uint64_t masked = 0;
  for (const Record& s : records_of(profile, RecordKind::kSamples)) {
    if (s.text("location") == line_name("signals.c", "masked")) {
      masked = s.u64("count");
    }
  }
  EXPECT_GT(masked, 100u) << "a thread that blocks every signal is sampled all the same";
}

struct ExitCase {
  const char* how;
  int status;
};

class Exits : public ::testing::TestWithParam<ExitCase> {};

TEST_P(Exits, LeaveCompletedExperimentsAndFinalRecords) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process({COZ_TEST_CLI, "run", "--experiment-length", "50ms", "-o", profile, "---",
                        fixture("exits"), GetParam().how});
  EXPECT_EQ(r.status, GetParam().status) << r.err;
  EXPECT_GE(records_of(profile, RecordKind::kExperiment).size(), 1u);
  EXPECT_EQ(records_of(profile, RecordKind::kRuntime).size(), 1u) << "final records written";
  bool spin_sampled = false;
  for (const Record& s : records_of(profile, RecordKind::kSamples)) {
    spin_sampled = spin_sampled || s.text("location") == line_name("exits.c", "spin");
  }
  EXPECT_TRUE(spin_sampled);
}

INSTANTIATE_TEST_SUITE_P(Ways, Exits,
                         ::testing::Values(ExitCase{"thread-exit", 3}, ExitCase{"_exit", 4},
                                           ExitCase{"sigterm", 128 + 15}, ExitCase{"return", 0},
                                           ExitCase{"main-pthread-exit", 0}, ExitCase{"vfork", 0}),
                         [](const ::testing::TestParamInfo<ExitCase>& info) {
                           std::string name = info.param.how;
                           for (char& c : name) {
                             c = isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return name;
                         });

// A line on a thread nobody waits for, sped up by 100%: the delay total rises as fast as the clock
// runs and the main thread, which makes every visit, cannot keep up. Its experiments take off only
// what that thread took (the rest is `owed`), where Coz's rule took off nearly all their time.
TEST(Experiments, ABackgroundLineIsTimedByTheThreadThatMadeTheProgress) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r =
      run_process({COZ_TEST_CLI, "run", "--fixed-line", line_name("background.c", "background"),
                   "--fixed-speedup", "100", "--zero-speedup-share", "0", "--experiment-length",
                   "100ms", "-o", profile, "---", fixture("background"), "1500"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto experiments = records_of(profile, RecordKind::kExperiment);
  ASSERT_GE(experiments.size(), 1u) << r.err;
  size_t owing = 0;
  for (const Record& e : experiments) {
    EXPECT_EQ(e.text("speedup"), "1.00");
    uint64_t elapsed = e.u64("elapsed"), inserted = e.u64("inserted"), owed = e.u64("owed");
    EXPECT_LE(owed, inserted);
    EXPECT_EQ(e.u64("duration"), elapsed - (inserted - owed)) << "elapsed less what was taken";
    owing += owed > 0;
  }
  EXPECT_GE(owing, 1u) << "the main thread owed part of the total at the end of some experiment";
}

// Rounds per effective and per real second at 100% against 0%.
struct Rates {
  double effective = 0, real = 0;
};
// Runs `program` under --fixed-line `line` at 0, 50 and 100% and returns its rates; `out`, if
// given, receives what the program printed.
Rates rates_at_full(const std::vector<std::string>& program, const std::string& line,
                    std::string* out = nullptr) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  std::vector<std::string> argv = {
      COZ_TEST_CLI, "run", "--fixed-line", line, "--speedup-step", "50", "--experiment-length",
      "50ms",       "-o",  profile,        "---"};
  argv.insert(argv.end(), program.begin(), program.end());
  auto r = run_process(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  if (out) {
    *out = r.out;
  }
  std::vector<Record> all = read_records(profile);
  struct Sums {
    double rounds = 0, effective_ns = 0, real_ns = 0;
  };
  std::map<std::string, Sums> by_speedup;
  for (size_t i = 0; i + 1 < all.size(); i++) {
    if (all[i].kind == RecordKind::kExperiment && all[i + 1].kind == RecordKind::kThroughputPoint) {
      Sums& s = by_speedup[all[i].text("speedup")];
      s.rounds += static_cast<double>(all[i + 1].u64("delta"));
      s.effective_ns += static_cast<double>(all[i].u64("duration"));
      s.real_ns += static_cast<double>(all[i].u64("elapsed"));
    }
  }
  const Sums& base = by_speedup["0.00"];
  const Sums& full = by_speedup["1.00"];
  if (base.rounds == 0 || full.rounds == 0) {
    ADD_FAILURE() << "no rounds at 0% or at 100%: " << r.err;
    return {};
  }
  return {(full.rounds / full.effective_ns) / (base.rounds / base.effective_ns),
          (full.rounds / full.real_ns) / (base.rounds / base.real_ns)};
}

// futex_handoff (with `how`: "thread" or "fork") on line b.
Rates futex_rates(const char* how) {
  std::string out;
  Rates rates = rates_at_full({fixture("futex_handoff"), "2500", how},
                              line_name("futex_handoff.c", "b"), &out);
  EXPECT_EQ(out, "eagain:ok timeout:ok enosys:ok getpid:ok \n") << "the kernel's answers";
  return rates;
}

TEST(Experiments, ALineEveryThreadRunsBetweenBarriersIsWorthItsShare) {
  // Two threads each run line a, half of their round, and meet at a pthread barrier each round
  // (a data-parallel loop). Making line a 100% faster really doubles the rounds per second, less
  // the meetings' own cost. Each thread's samples of line a owe the other a delay, which its own
  // samples of the line cancel: paid in full at every meeting instead, each delay held up the
  // other thread at the barrier, and the prediction fell to about 1.2x. It reads 1.48-1.67 on the
  // two-core VM (ten quiet runs): the bound sits between the two.
  Rates rates = rates_at_full({fixture("barrier_loop"), "2500"}, line_name("barrier_loop.c", "a"));
  EXPECT_GT(rates.effective, 1.35) << "rounds per effective second at 100% against 0%";
  EXPECT_GT(rates.real, 0.8) << "rounds per real second at 100% against 0%";
}

TEST(Experiments, AThreadWokenFromAFutexIsCreditedByItsWaker) {
  // Two threads hand a token back and forth through raw futex calls (syscall(SYS_futex), as
  // Rust's std and libstdc++ park threads). Line b, most of a round, runs while the main thread,
  // which counts the rounds, sleeps in FUTEX_WAIT: its waker's count covers the delays line b's
  // samples insert. So at 100% the main thread pauses for none of them (its rounds per real
  // second stay as they are) and the rounds per effective second rise by about 1 / (1 - share).
  // Were the wait invisible, the main thread would pay line b's delays after each wake: about
  // 0.6 of the rate in real time, and no change per effective second.
  Rates rates = futex_rates("thread");
  EXPECT_GT(rates.effective, 1.4) << "rounds per effective second at 100% against 0%";
  EXPECT_GT(rates.real, 0.85) << "rounds per real second at 100% against 0%";
}

TEST(Experiments, AProcessWokenFromASharedFutexIsCreditedByItsWakerInAnother) {
  // The same hand-off between a process and its forked child, through a futex word in memory
  // both map (FUTEX_PRIVATE_FLAG clear): the child publishes its count on the run's shared table.
  Rates rates = futex_rates("fork");
  EXPECT_GT(rates.effective, 1.4) << "rounds per effective second at 100% against 0%";
  EXPECT_GT(rates.real, 0.85) << "rounds per real second at 100% against 0%";
}
}  // namespace
}  // namespace coz
