// Progress-point registration: idempotent and thread-safe per (kind, name); arrival counters are
// per thread and summed per point.
#include "points/progress_points.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace coz {
namespace {

size_t point_count(const ProgressPoints& points) {
  size_t n = 0;
  points.for_each([&n](const ProgressPoint&) { n++; });
  return n;
}

TEST(ProgressPoints, SameNameAndKindSameCounter) {
  ProgressPoints points;
  Counter* a = points.get(1, "work");
  EXPECT_EQ(points.get(1, "work"), a);
  EXPECT_NE(points.get(2, "work"), a) << "begin and throughput counters differ";
  EXPECT_EQ(points.get(0, "work"), nullptr);
  EXPECT_EQ(points.get(1, nullptr), nullptr);
  EXPECT_EQ(points.get(4, "work"), nullptr) << "arrival counters come from new_arrival()";
  EXPECT_EQ(point_count(points), 1u);
}

TEST(ProgressPoints, ConcurrentRegistrationIsIdempotent) {
  ProgressPoints points;
  std::vector<Counter*> seen(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; i++) {
    threads.emplace_back([&, i] { seen[i] = points.get(1, "shared"); });
  }
  for (auto& t : threads) {
    t.join();
  }
  for (Counter* c : seen) {
    EXPECT_EQ(c, seen[0]);
  }
  EXPECT_EQ(point_count(points), 1u);
}

TEST(ProgressPoints, ArrivalCountersArePerThreadAndSummedPerPoint) {
  ProgressPoints points;
  std::vector<std::thread> threads;
  std::vector<ArrivalCounter*> counters(4);
  for (int i = 0; i < 4; i++) {
    threads.emplace_back([&, i] {
      counters[i] = points.new_arrival("requests");
      for (int n = 0; n <= i; n++) {
        counters[i]->counter.count++;
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  std::set<ArrivalCounter*> distinct(counters.begin(), counters.end());
  EXPECT_EQ(distinct.size(), 4u) << "one counter per thread";
  uint64_t total = 0;
  points.for_each_arrival([&](const ArrivalCounter& a) {
    EXPECT_EQ(a.point->name, "requests");
    total += a.counter.count;
  });
  EXPECT_EQ(total, 1u + 2 + 3 + 4);
  EXPECT_TRUE(points.any_arrivals());
  EXPECT_EQ(point_count(points), 1u) << "all on one point";
}

}  // namespace
}  // namespace coz
