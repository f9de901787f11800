// The bounded send queue both sides of a run across programs use (remote/send_queue.h).
#include "remote/send_queue.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace coz::remote {
namespace {

// A socket that takes `room` more bytes, then is full; or fails with `fail_with`.
size_t room = 0;
int fail_with = 0;
std::string taken;

ssize_t scripted_send(int, const void* data, size_t size, int) {
  if (fail_with != 0) {
    errno = fail_with;
    return -1;
  }
  if (room == 0) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = std::min(size, room);
  taken.append(static_cast<const char*>(data), n);
  room -= n;
  return static_cast<ssize_t>(n);
}

class SendQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    room = 0;
    fail_with = 0;
    taken.clear();
  }
};

TEST_F(SendQueueTest, RefusesWhatWouldPassTheLimit) {
  SendQueue q;
  std::string half(SendQueue::kMaxQueued / 2, 'x');
  EXPECT_TRUE(q.under_half());
  EXPECT_TRUE(q.push(half));
  EXPECT_FALSE(q.under_half());
  EXPECT_TRUE(q.push(half));
  EXPECT_EQ(q.waiting(), SendQueue::kMaxQueued);
  EXPECT_FALSE(q.push("y"));  // nothing of it queued
  EXPECT_EQ(q.waiting(), SendQueue::kMaxQueued);
  EXPECT_EQ(SendQueue::limit_text(), "4 MiB");
}

TEST_F(SendQueueTest, SendsWhatTheSocketTakesAndKeepsTheRest) {
  SendQueue q;
  ASSERT_TRUE(q.push("hello\n"));
  ASSERT_TRUE(q.push("world\n"));
  room = 4;
  EXPECT_EQ(q.flush(3, scripted_send), 0);  // a full socket is no failure
  EXPECT_EQ(taken, "hell");
  EXPECT_EQ(q.waiting(), 8u);
  room = 100;
  EXPECT_EQ(q.flush(3, scripted_send), 0);
  EXPECT_EQ(taken, "hello\nworld\n");
  EXPECT_TRUE(q.empty());
}

TEST_F(SendQueueTest, RoomComesBackAsBytesGo) {
  SendQueue q;
  ASSERT_TRUE(q.push(std::string(SendQueue::kMaxQueued, 'x')));
  room = SendQueue::kMaxQueued / 2 + 1;
  EXPECT_EQ(q.flush(3, scripted_send), 0);
  EXPECT_TRUE(q.under_half());
  EXPECT_TRUE(q.push(std::string(SendQueue::kMaxQueued / 2, 'y')));
  room = SendQueue::kMaxQueued;
  EXPECT_EQ(q.flush(3, scripted_send), 0);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(taken.size(), SendQueue::kMaxQueued + SendQueue::kMaxQueued / 2);
  EXPECT_EQ(taken.back(), 'y');
}

TEST_F(SendQueueTest, SaysAFailureAndNothingWithoutASocket) {
  SendQueue q;
  ASSERT_TRUE(q.push("bye\n"));
  EXPECT_EQ(q.flush(-1, scripted_send), 0);
  EXPECT_EQ(q.waiting(), 4u);
  fail_with = EPIPE;
  EXPECT_EQ(q.flush(3, scripted_send), EPIPE);
}

TEST_F(SendQueueTest, WorksOnARealSocket) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  SendQueue q;
  ASSERT_TRUE(q.push("one line\n"));
  EXPECT_EQ(q.flush(fds[0], ::send), 0);
  EXPECT_TRUE(q.empty());
  char buf[32] = {};
  EXPECT_EQ(read(fds[1], buf, sizeof buf), 9);
  EXPECT_STREQ(buf, "one line\n");
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace coz::remote
