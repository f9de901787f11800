// The experiment runner with its clock injected: an end-to-end experiment begun, fed samples,
// progress visits and inserted delays by hand, and ended; the record it writes says exactly what
// happened (duration = elapsed less inserted delays). And run()'s loop in real time: it waits
// for a sampled line, runs experiments back to back, and stops.
#include "runtime/experiment_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "record/profile_format.h"
#include "test_support.h"

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
  EXPECT_EQ(state.selected.load(), line);
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
  EXPECT_EQ(state.selected.load(), nullptr);
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

// Waits (up to 5 s) until `done()`.
template <typename F>
bool eventually(F&& done) {
  for (int i = 0; i < 5000 && !done(); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

TEST(ExperimentRunner, RunWaitsForASampledLineThenRunsExperimentsBackToBack) {
  test::TempDir dir;
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("p.coz"), &error)) << error;
  LineTable lines;
  SourceLine* line = lines.intern_line(lines.intern_file("/src/a.c"), 7);
  ExperimentState state;
  ProgressPoints points;
  RunnerSettings settings;
  settings.scheduler.initial_length_ns = 5000000;  // 5 ms, doubling: no progress point is visited
  settings.scheduler.cooloff_ns = 1000000;
  ExperimentRunner runner(settings, state, points, writer, 1);
  std::atomic<int> idle{0};
  std::thread profiler([&] { runner.run([&] { idle++; }); });

  ASSERT_TRUE(eventually([&] { return state.want_line.load(); })) << "it asks for a line";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(state.selected.load(), nullptr) << "and begins nothing until one is sampled";
  int offers = 0;
  // A sample offers the line whenever the runner wants one; four offers: three experiments ended.
  while (offers < 4 && eventually([&] { return state.want_line.load(); })) {
    state.on_sample(line);
    offers++;
    ASSERT_TRUE(eventually([&] { return !state.want_line.load(); }));
  }
  runner.stop();
  profiler.join();
  EXPECT_EQ(offers, 4);
  EXPECT_GT(idle.load(), 0) << "idle work runs while it waits";
  EXPECT_EQ(state.selected.load(), line) << "the fourth was running when stop() came";

  Records p = read_records(dir.file("p.coz"));
  std::vector<uint64_t> elapsed;
  for (const Record& r : p.all) {
    if (r.kind == RecordKind::kExperiment) {
      EXPECT_EQ(r.text(vocab::key::kSelected), "/src/a.c:7");
      elapsed.push_back(r.u64(vocab::key::kElapsed));
    }
  }
  ASSERT_EQ(elapsed.size(), 3u) << "each finished experiment written; the cut one not";
  EXPECT_EQ(runner.experiments(), 3u);
  EXPECT_GE(elapsed[1], 10000000u) << "too few visits: the length doubled";
  EXPECT_GE(elapsed[2], 20000000u);
}

}  // namespace
}  // namespace coz
