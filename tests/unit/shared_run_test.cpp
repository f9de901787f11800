// What the processes of one run share (runtime/shared_run.h): the offered line travels by key and
// name, progress points meet by name in shared slots (a child's visits count with the root's, its
// arrivals once published), and a pipe's two ends share one hand-off key.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "experiment/experiment_state.h"
#include "hooks/fd_keys.h"
#include "line/line_table.h"
#include "points/progress_points.h"
#include "test_support.h"

namespace coz {
namespace {

TEST(LineOffer, CarriesTheLinesKeyAndNameAndTakesOneOfferAtATime) {
  LineTable lines;
  SourceLine* a = lines.intern_line(lines.intern_file("/src/a.c"), 12);
  SourceLine* b = lines.intern_line(lines.intern_file("/src/b.c"), 3);
  EXPECT_NE(a->key, b->key);
  EXPECT_EQ(a->key, SourceLine::key_of("/src/a.c", 12)) << "the same name in every process";
  auto state = std::make_unique<ExperimentState>();
  state->want_line = true;
  EXPECT_FALSE(state->on_sample(a));
  EXPECT_FALSE(state->on_sample(b));  // one offer pending: b waits for the next
  uint64_t key = 0;
  std::string name;
  ASSERT_TRUE(state->offered.take(&key, &name));
  EXPECT_EQ(key, a->key);
  EXPECT_EQ(name, "/src/a.c:12");
  EXPECT_FALSE(state->offered.take(&key, &name)) << "taken once";
  state->selected = b->key;
  EXPECT_TRUE(state->on_sample(b));
  EXPECT_EQ(state->selected_samples.load(), 1u);
}

TEST(LineOffer, AnOfferLeftHalfWrittenIsDroppedAfterSomePolls) {
  // A process that died between claiming the offer and finishing it: the runner takes offers
  // again after `stale_polls` polls, and not before.
  auto offer = std::make_unique<LineOffer>();
  ASSERT_TRUE(offer->claim());  // as a writer that died there left it
  uint64_t key = 0;
  std::string name;
  for (int i = 0; i < 4; i++) {
    EXPECT_FALSE(offer->take(&key, &name, 5));
    EXPECT_TRUE(offer->pending()) << "still half written after poll " << i + 1;
  }
  EXPECT_FALSE(offer->take(&key, &name, 5));  // the fifth poll clears it
  EXPECT_FALSE(offer->pending());
  EXPECT_TRUE(offer->claim()) << "a new offer can be made";
}

TEST(SharedPoints, ProcessesMeetByNameAndCountTogether) {
  auto shared = std::make_unique<SharedPoints>();
  ProgressPoints root, child;  // two processes' tables over one shared region
  root.attach_shared(shared.get());
  child.attach_shared(shared.get());
  Counter* r = root.get(1, "jobs");
  Counter* c = child.get(1, "jobs");
  EXPECT_EQ(r, c) << "one count for the point, whichever process visits it";
  child.get(3, "requests");  // only the child has a latency point
  root.adopt_shared();
  bool found = false;
  root.for_each([&](const ProgressPoint& p) {
    if (p.name == "requests") {
      found = true;
      EXPECT_TRUE(p.is_latency) << "its kind as the child marked it";
      EXPECT_EQ(&p.end(), child.get(3, "requests"));
    }
  });
  EXPECT_TRUE(found) << "the root knows the child's point";
}

TEST(SharedPoints, AChildsArrivalsArePublishedOnce) {
  auto shared = std::make_unique<SharedPoints>();
  ProgressPoints child;
  child.attach_shared(shared.get());
  ArrivalCounter* a = child.new_arrival("requests");
  a->counter.count = 7;
  child.forget_published();  // counted before the fork: the parent's
  a->counter.count = 10;
  child.publish_arrivals();
  child.publish_arrivals();
  SharedPoints::Slot* slot = shared->find_or_add("requests");
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->arrivals_elsewhere.load(), 3u);
  EXPECT_TRUE(slot->flags.load() & SharedPoints::kArrivals);
}

TEST(SharedPoints, EveryNameGetsItsOwnSlotUntilTheyRunOut) {
  auto shared = std::make_unique<SharedPoints>();
  for (size_t i = 0; i < SharedPoints::kSlots; i++) {
    ASSERT_NE(shared->find_or_add("p" + std::to_string(i)), nullptr);
  }
  EXPECT_EQ(shared->find_or_add("one too many"), nullptr);
  EXPECT_EQ(shared->find_or_add("p3"), &shared->slots[3]);
}

TEST(FdKeys, BothEndsOfAPipeShareAKeyOtherFilesHaveNone) {
  auto keys = std::make_unique<FdKeys>();
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  EXPECT_NE(keys->key(p[0]), nullptr);
  EXPECT_EQ(keys->key(p[0]), keys->key(p[1]));
  int q[2];
  ASSERT_EQ(pipe(q), 0);
  EXPECT_NE(keys->key(q[0]), keys->key(p[0]));
  int file = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(keys->key(file), nullptr);
  // The number reused for another pipe: forgotten at close (the hooks' job), keyed afresh.
  close(p[0]);
  keys->forget(p[0]);
  ASSERT_EQ(dup2(q[0], p[0]), p[0]);
  EXPECT_EQ(keys->key(p[0]), keys->key(q[0]));
  EXPECT_NE(FdKeys::of_process(42), keys->key(q[0]));
  for (int fd : {p[0], p[1], q[0], q[1], file}) {
    close(fd);
  }
}

}  // namespace
}  // namespace coz
