// The experiment runner with its clock injected: an end-to-end experiment begun, fed samples,
// progress visits and inserted delays by hand, and ended; the record it writes says exactly what
// happened (duration = elapsed less inserted delays).
#include "runtime/experiment_runner.h"

#include <gtest/gtest.h>

#include <string>
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

}  // namespace
}  // namespace coz
