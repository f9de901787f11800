// The delay-count handoff table: the highest count per key and experiment, nothing across
// experiments.
#include "experiment/handoff_table.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace coz {
namespace {

TEST(HandoffTable, KeepsTheHighestCountPerExperiment) {
  static HandoffTable table;  // large: keep it off the stack
  int mutex_a = 0, mutex_b = 0;
  EXPECT_EQ(table.read(&mutex_a, 1), 0u);
  table.publish(&mutex_a, 1, 5);
  table.publish(&mutex_a, 1, 3);
  EXPECT_EQ(table.read(&mutex_a, 1), 5u);
  table.publish(&mutex_a, 1, 9);
  EXPECT_EQ(table.read(&mutex_a, 1), 9u);
  EXPECT_EQ(table.read(&mutex_b, 1), 0u);
  EXPECT_EQ(table.read(&mutex_a, 2), 0u) << "a count from another experiment is not credited";
  table.publish(&mutex_a, 2, 1);
  EXPECT_EQ(table.read(&mutex_a, 2), 1u) << "a new experiment replaces the old count";
  EXPECT_EQ(table.read(&mutex_a, 1), 0u);
}

TEST(HandoffTable, ConcurrentPublishersLeaveTheMaximum) {
  static HandoffTable table;
  int key = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 10000; i++) {
        table.publish(&key, 7, i * 4 + static_cast<uint64_t>(t));
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(table.read(&key, 7), 9999u * 4 + 3);
}

}  // namespace
}  // namespace coz
