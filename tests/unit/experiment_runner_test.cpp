// The experiment runner with its clock injected: an end-to-end experiment begun, fed samples,
// progress visits and inserted delays by hand, and ended; the record it writes says exactly what
// happened (duration = elapsed less inserted delays). And run()'s loop in real time: it waits
// for a sampled line, runs experiments back to back, and stops (an experiment cut short by stop()
// is not written).
#include "profiler/experiment_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "record/profile_format.h"
#include "unit/runner_parts.h"

namespace coz {
namespace {

uint64_t fake_now = 0;
uint64_t fake_clock() {
  return fake_now;
}

struct Records {
  std::vector<Record> all;
  const Record* first(RecordKind kind, const std::string& name = "") const {
    for (const Record& r : all) {
      if (r.kind == kind && (name.empty() || r.text(vocab::key::kName) == name)) {
        return &r;
      }
    }
    return nullptr;
  }
};

Records read_records(const std::string& path) {
  Records out;
  std::vector<ParseError> errors;
  std::string error;
  EXPECT_TRUE(read_profile(path, &out.all, &errors, &error)) << error;
  EXPECT_TRUE(errors.empty());
  return out;
}

TEST(ExperimentRunner, AnEndToEndExperimentRecordsWhatHappened) {
  test::TempDir dir;
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("p.coz"), &error)) << error;
  LineTable lines;
  SourceLine* line = lines.intern_line(lines.intern_file("/src/a.c"), 12);
  ExperimentState state;
  ProgressPoints points;
  Counter* done = points.get(static_cast<int>(PointKind::kThroughput), "done");
  Counter* begin = points.get(static_cast<int>(PointKind::kBegin), "req");
  Counter* end = points.get(static_cast<int>(PointKind::kEnd), "req");
  ASSERT_TRUE(done && begin && end);
  done->count = 100;  // visits before the experiment do not count

  RunnerSettings settings;
  settings.end_to_end = true;
  settings.fixed_line = line;
  settings.scheduler.fixed_speedup = 50;
  settings.run_id = 42;
  settings.clock = fake_clock;
  fake_now = 1000;
  ExperimentRunner runner(settings, state, points, writer, 1);
  runner.begin_end_to_end_early();
  EXPECT_EQ(state.selected.load(), line->key);
  EXPECT_EQ(state.ledger.delay_ns(), 500000u) << "50% of the 1 ms sampling period";

  for (int i = 0; i < 7; i++) {
    EXPECT_TRUE(state.on_sample(line));
  }
  done->count += 30;
  begin->count += 4;
  end->count += 3;
  LocalDelays other;
  state.ledger.absorb(other, 100000000);  // a thread ran 100 ms faster: 100 ms inserted
  fake_now += 1000000000;
  runner.finish();
  EXPECT_EQ(state.selected.load(), 0u);
  EXPECT_FALSE(state.ledger.active());
  EXPECT_EQ(runner.experiments(), 1u);

  Records p = read_records(dir.file("p.coz"));
  const Record* e = p.first(RecordKind::kExperiment);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->text(vocab::key::kSelected), "/src/a.c:12");
  EXPECT_EQ(e->text(vocab::key::kSpeedup), "0.50");
  EXPECT_EQ(e->u64(vocab::key::kElapsed), 1000000000u);
  EXPECT_EQ(e->u64(vocab::key::kInserted), 100000000u);
  EXPECT_EQ(e->u64(vocab::key::kDuration), 900000000u) << "elapsed less the inserted delays";
  EXPECT_EQ(e->u64(vocab::key::kSelectedSamples), 7u);
  EXPECT_EQ(e->u64(vocab::key::kDelaySize), 500000u);
  EXPECT_EQ(e->u64(vocab::key::kDelays), 200u);
  EXPECT_EQ(e->u64(vocab::key::kRun), 42u);
  const Record* t = p.first(RecordKind::kThroughputPoint, "done");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->u64(vocab::key::kDelta), 30u);
  const Record* l = p.first(RecordKind::kLatencyPoint, "req");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->u64(vocab::key::kArrivals), 4u);
  EXPECT_EQ(l->u64(vocab::key::kDepartures), 3u);
  EXPECT_EQ(l->u64(vocab::key::kDifference), 1u);
}

TEST(ExperimentRunner, NothingBegunNothingWritten) {
  test::TempDir dir;
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("p.coz"), &error)) << error;
  ExperimentState state;
  ProgressPoints points;
  RunnerSettings settings;
  settings.end_to_end = true;  // but no line known before the run: the profiler thread picks one
  settings.clock = fake_clock;
  ExperimentRunner runner(settings, state, points, writer, 1);
  runner.begin_end_to_end_early();
  EXPECT_FALSE(state.ledger.active());
  runner.finish();
  EXPECT_EQ(runner.experiments(), 0u);
  EXPECT_EQ(read_records(dir.file("p.coz")).first(RecordKind::kExperiment), nullptr);
}

using test::eventually;

// A runner in real time on its own thread, counting the experiments it writes.
struct RunningRunner : test::RunnerParts {
  explicit RunningRunner(uint64_t length_ns) : RunnerParts("a.c", 7) {
    RunnerSettings settings;
    settings.scheduler.initial_length_ns = length_ns;  // doubling: no progress point is visited
    settings.scheduler.cooloff_ns = 1000000;
    runner.emplace(settings, state, points, writer, 1);
    runner->set_on_write([this](bool ok, const std::string&) {
      EXPECT_TRUE(ok);
      written++;
    });
    profiler = std::thread([this] { runner->run([this] { idle++; }); });
  }
  ~RunningRunner() {
    if (profiler.joinable()) {
      stop();
    }
  }
  void stop() {
    runner->stop();
    profiler.join();
  }
  // Offers the line as a sample would once the runner asks for one; returns false if it never
  // asked. Call it while no experiment runs (before the first, or once the last is written):
  // then a want_line seen true is not stale, and stays true until the runner takes the offer,
  // so the offer always lands.
  bool offer() {
    if (!eventually([&] { return state.want_line.load(); })) {
      return false;
    }
    EXPECT_FALSE(state.on_sample(line)) << "no experiment runs while the runner asks";
    return true;
  }
  std::vector<uint64_t> elapsed_written() {
    std::vector<uint64_t> out;
    for (const Record& r : read_records(dir.file("p.coz")).all) {
      if (r.kind == RecordKind::kExperiment) {
        EXPECT_EQ(r.text(vocab::key::kSelected), "/src/a.c:7");
        out.push_back(r.u64(vocab::key::kElapsed));
      }
    }
    return out;
  }

  std::optional<ExperimentRunner> runner;
  std::atomic<int> idle{0};
  std::atomic<int> written{0};
  std::thread profiler;
};

TEST(ExperimentRunner, RunWaitsForASampledLineThenRunsExperimentsBackToBack) {
  RunningRunner r(5000000);  // 5 ms, then 10 ms, then 20 ms
  ASSERT_TRUE(eventually([&] { return r.state.want_line.load(); })) << "it asks for a line";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(r.state.selected.load(), 0u) << "and begins nothing until one is sampled";
  EXPECT_EQ(r.written.load(), 0);
  // Each offer is taken (begin() clears `offered`), run as one experiment, and written; the
  // runner then asks again after the cool-off. The next offer waits for the write, so it never
  // meets a runner still in an experiment.
  for (int i = 1; i <= 3; i++) {
    ASSERT_TRUE(r.offer()) << "experiment " << i;
    ASSERT_TRUE(eventually([&] { return !r.state.offered.pending(); })) << "taken";
    ASSERT_TRUE(eventually([&] { return r.written.load() == i; })) << "experiment " << i;
  }
  // stop() while the runner waits for a line: nothing open, nothing more written.
  ASSERT_TRUE(eventually([&] { return r.state.want_line.load(); }));
  r.stop();
  EXPECT_GT(r.idle.load(), 0) << "idle work runs while it waits";
  EXPECT_EQ(r.state.selected.load(), 0u);
  std::vector<uint64_t> elapsed = r.elapsed_written();
  ASSERT_EQ(elapsed.size(), 3u) << "each finished experiment written";
  EXPECT_EQ(r.written.load(), 3);
  EXPECT_EQ(r.runner->experiments(), 3u);
  EXPECT_GE(elapsed[0], 5000000u);
  EXPECT_GE(elapsed[1], 10000000u) << "too few visits: the length doubled";
  EXPECT_GE(elapsed[2], 20000000u);
}

TEST(ExperimentRunner, AnExperimentCutShortByStopIsNotWritten) {
  RunningRunner r(3600000000000);  // an hour: stop() always comes first
  ASSERT_TRUE(r.offer());
  ASSERT_TRUE(eventually([&] { return r.state.selected.load() == r.line->key; })) << "it began";
  r.stop();
  EXPECT_EQ(r.state.selected.load(), r.line->key) << "still running when stop() came";
  EXPECT_EQ(r.written.load(), 0);
  EXPECT_EQ(r.runner->experiments(), 0u);
  EXPECT_TRUE(r.elapsed_written().empty()) << "the cut experiment is not written";
}

TEST(ExperimentRunner, SettingsComeFromTheConfig) {
  RunConfig c;
  c.end_to_end = true;
  c.fixed_speedup = 25;
  c.speedup_step = 10;
  c.zero_speedup_share = 0.25;
  c.sampling_period_ns = 2000000;
  c.experiment_length_ns = 300000000;
  c.arrival_speedup_ns = 750000;
  c.load = 2;
  c.run_id = 9;
  RunnerSettings root = runner_settings(c, true);
  EXPECT_TRUE(root.end_to_end);
  EXPECT_FALSE(root.follower);
  EXPECT_EQ(root.scheduler.fixed_speedup, 25);
  EXPECT_EQ(root.scheduler.speedup_step, 10);
  EXPECT_EQ(root.scheduler.zero_speedup_share, 0.25);
  EXPECT_EQ(root.scheduler.initial_length_ns, 300000000u);
  EXPECT_EQ(root.scheduler.cooloff_ns, kCooloffPeriods * 2000000u) << "in sampling periods";
  EXPECT_EQ(root.sampling_period_ns, 2000000u);
  EXPECT_EQ(root.amplify.arrival_speedup_ns, 750000u);
  EXPECT_EQ(root.amplify.load, 2.0);
  EXPECT_EQ(root.run_id, 9u);
  EXPECT_EQ(root.fixed_line, nullptr) << "the line is the caller's to resolve";
  EXPECT_FALSE(root.fixed_elsewhere);
  EXPECT_TRUE(runner_settings(c, false).follower);
}

TEST(ExperimentRunner, AFixedLineOnlyAnotherProcessHasBeginsOnceItIsResolved) {
  test::TempDir dir;
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("p.coz"), &error)) << error;
  LineTable lines;  // the other process's table
  SourceLine* line = lines.intern_line(lines.intern_file("/src/worker.c"), 7);
  ExperimentState state;
  ProgressPoints points;
  RunnerSettings settings;
  settings.end_to_end = true;
  settings.fixed_elsewhere = true;
  settings.scheduler.fixed_speedup = 50;
  ExperimentRunner runner(settings, state, points, writer, 1);
  runner.begin_end_to_end_early();
  EXPECT_EQ(state.selected.load(), 0u) << "not before the line is known";
  std::thread profiler([&] { runner.run([] {}); });
  state.offered.put(*line);  // a sample of it offers nothing: the line is fixed
  state.fixed.put(*line);    // the process that has it resolved it
  for (int i = 0; i < 1000 && state.selected.load() == 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(state.selected.load(), line->key);
  runner.stop();
  profiler.join();
  runner.finish();
  Records p = read_records(dir.file("p.coz"));
  const Record* e = p.first(RecordKind::kExperiment);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->text(vocab::key::kSelected), "/src/worker.c:7");
}

}  // namespace
}  // namespace coz
