// The pure step from an experiment's counts to its result, and the records it becomes.
#include "experiment/experiment_result.h"

#include <gtest/gtest.h>

#include "record/experiment_record.h"

namespace coz {
namespace {

ExperimentInput base() {
  ExperimentInput in;
  in.selected = "a.c:7";
  in.speedup = 40;
  in.delay_ns = 400000;
  in.elapsed_ns = 500000000;
  in.inserted_ns = 120000000;
  in.selected_samples = 75;
  return in;
}

TEST(ExperimentResult, VirtualTimeIsElapsedLessInsertedDelays) {
  ExperimentResult r = compute_experiment_result(base());
  EXPECT_EQ(r.duration_ns, 380000000u);
  EXPECT_EQ(r.delays, 300u);  // Coz's count: inserted over delay size
  EXPECT_EQ(r.delay_size_ns, 400000u);
  ExperimentInput over = base();
  over.inserted_ns = over.elapsed_ns + 1;  // paused longer than it ran: never negative
  EXPECT_EQ(compute_experiment_result(over).duration_ns, 0u);
  ExperimentInput zero = base();
  zero.speedup = 0;
  zero.delay_ns = 0;
  EXPECT_EQ(compute_experiment_result(zero).delays, 0u);
}

TEST(ExperimentResult, PointsByKind) {
  ExperimentInput in = base();
  PointInput tput{"done", false, false, {}, {}, {}};
  tput.before.throughput = 10;
  tput.after.throughput = 35;
  PointInput lat{"req", true, true, {}, {}, {}};
  lat.before = {0, 100, 98, 100, 1000};
  lat.after = {0, 160, 150, 160, 5000};
  lat.in_flight.add(3, 0, 1e6);  // 3 in flight for 1 ms: 3e6 request-ns
  PointInput arrivals_only{"queue", false, true, {}, {}, {}};
  arrivals_only.after.arrivals = 9;
  in.points = {tput, lat, arrivals_only};
  ExperimentResult r = compute_experiment_result(in);
  ASSERT_EQ(r.points.size(), 3u);
  EXPECT_EQ(r.points[0].kind, PointResult::Kind::kThroughput);
  EXPECT_EQ(r.points[0].delta, 25u);
  EXPECT_EQ(r.points[1].kind, PointResult::Kind::kLatency);
  EXPECT_EQ(r.points[1].arrivals, 60u);
  EXPECT_EQ(r.points[1].departures, 52u);
  EXPECT_EQ(r.points[1].in_flight, 10u);
  EXPECT_EQ(r.points[1].in_flight_ns, 3000000u - 4000u);  // delay while in flight taken off
  EXPECT_EQ(r.points[1].arrival_count, 60u);
  EXPECT_EQ(r.points[2].kind, PointResult::Kind::kArrivalsOnly);
  EXPECT_EQ(r.visits, 25u + 60u + 52u);
  EXPECT_EQ(r.fewest_visits, 25u) << "the throughput point is the least visited";
  // A point never visited in the run does not hold experiments short; one visited before but not
  // in this experiment does.
  PointInput never{"never", false, false, {}, {}, {}};
  PointInput idle{"idle", false, false, {}, {}, {}};
  idle.before.throughput = idle.after.throughput = 4;
  in.points = {tput, never};
  EXPECT_EQ(compute_experiment_result(in).fewest_visits, 25u);
  in.points = {tput, idle};
  EXPECT_EQ(compute_experiment_result(in).fewest_visits, 0u);
}

TEST(ExperimentResult, AchievedLoadFromTheArrivalThreadsOwnRate) {
  ExperimentInput in = base();
  in.amplify.load = 2;
  in.arrival_threads = 2;
  in.arrival_period_sum_ns = 10 * 1000000;  // mean period 1 ms
  in.arrivals_with_period = 10;
  PointInput p{"req", false, true, {}, {}, {}};
  p.after.arrivals = 1520;  // over 380 ms of virtual time: 4 per ms; two threads of 1 per ms
  in.points = {p};
  ExperimentResult r = compute_experiment_result(in);
  EXPECT_TRUE(r.amplified);
  ASSERT_TRUE(r.has_load);
  EXPECT_DOUBLE_EQ(r.load, 2.0);
  in.arrival_threads = 0;  // no period measured: no load claimed
  EXPECT_FALSE(compute_experiment_result(in).has_load);
}

TEST(ExperimentRecord, WritesTheVocabularysRecords) {
  ExperimentInput in = base();
  in.run_id = 12;
  in.start_ns = 2000000000;
  PointInput p{"done", false, false, {}, {}, {}};
  p.after.throughput = 5;
  in.points = {p};
  RecordBuilder block;
  append_experiment(compute_experiment_result(in), &block);
  EXPECT_EQ(block.text(),
            "experiment\tselected=a.c:7\tspeedup=0.40\tduration=380000000\tselected-samples=75\t"
            "elapsed=500000000\tdelays=300\tdelay-size=400000\tinserted=120000000\t"
            "start=2000000000\trun=12\n"
            "throughput-point\tname=done\tdelta=5");
}

}  // namespace
}  // namespace coz
