// The _FORTIFY_SOURCE forms of the wait hooks wait for what their plain forms do. This file is
// compiled with -O2 -D_FORTIFY_SOURCE=2 (Debian's and Ubuntu's default for packages), so its
// pread() and poll() on buffers of known size become __pread_chk() and __poll_chk(), and reach
// libcoz's hooks for those (interpose/wait_hooks.cpp, linked in) as a fortified program's would.
// The runtime's side is a recorder of the descriptor each wait names: a descriptor lets another
// process of the run that wrote to it hand over its delays (hooks/fd_keys.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <vector>

#include "hooks/hooks_api.h"
#include "hooks/quiet_hooks.h"
#include "hooks/wait_timing.h"
#include "threads/thread_state.h"

#if !defined(_FORTIFY_SOURCE) || _FORTIFY_SOURCE < 2 || !defined(__OPTIMIZE__)
#error "this test must be built with -O2 -D_FORTIFY_SOURCE=2"
#endif

namespace coz {

// The runtime's state as the hooks read it: a thread that is measured, waits on.
__thread __attribute__((tls_model("initial-exec"))) ThreadState* t_thread_state = nullptr;
__thread __attribute__((tls_model("initial-exec"))) int quiet_hooks::t_inside = 0;
std::atomic<ExperimentState*> quiet_hooks::g_experiment{nullptr};
std::atomic<HandoffTable*> quiet_hooks::g_handoffs{nullptr};
wait_timing::WipedAtFork g_wiped_page;
std::atomic<wait_timing::WipedAtFork*> wait_timing::g_wiped{&g_wiped_page};

namespace hooks_api {
std::atomic<bool> g_in_tree{false};
std::vector<int> g_waited_fds;  // per wait that reached the runtime: the descriptor it named
bool active() {
  return true;
}
void after_wait(const wait_timing::Wait&, const void*, const void*, WaitFor waker) {
  g_waited_fds.push_back(waker.fd);
}
void catch_up_fully() {}
void before_write_slowly(int) {}
}  // namespace hooks_api

namespace {

class FortifiedHooks : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every call counts as a wait (no switch counter, no gate), as for the timer sampler.
    wait_timing::set_mode(wait_timing::kOn);
    t_thread_state = &thread_;
    hooks_api::g_waited_fds.clear();
    ASSERT_EQ(pipe(fds_), 0);
    ASSERT_EQ(write(fds_[1], "xy", 2), 2);
  }
  void TearDown() override {
    t_thread_state = nullptr;
    close(fds_[0]);
    close(fds_[1]);
  }
  // A count the compiler cannot bound, as a program's runtime lengths are: fortification then
  // checks it at run time (the _chk form) instead of calling the plain one.
  static size_t runtime_value(size_t v) {
    volatile size_t unknown = v;
    return unknown;
  }

  ThreadState thread_;
  int fds_[2] = {-1, -1};
};

TEST_F(FortifiedHooks, PollNamesTheFirstReadyDescriptor) {
  struct pollfd polled[2] = {{fds_[1], POLLOUT, 0}, {fds_[0], POLLIN, 0}};
  ASSERT_GT(poll(polled, runtime_value(2), 1000), 0);
  ASSERT_FALSE(hooks_api::g_waited_fds.empty());
  EXPECT_EQ(hooks_api::g_waited_fds.back(), fds_[0]);
}

TEST_F(FortifiedHooks, PpollNamesTheFirstReadyDescriptor) {
  struct pollfd polled[2] = {{fds_[1], POLLOUT, 0}, {fds_[0], POLLIN, 0}};
  struct timespec second = {1, 0};
  ASSERT_GT(ppoll(polled, runtime_value(2), &second, nullptr), 0);
  ASSERT_FALSE(hooks_api::g_waited_fds.empty());
  EXPECT_EQ(hooks_api::g_waited_fds.back(), fds_[0]);
}

TEST_F(FortifiedHooks, PreadNamesItsDescriptor) {
  char path[] = "/tmp/coz-fortified-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(write(fd, "abcd", 4), 4);
  char buf[4];
  ASSERT_EQ(pread(fd, buf, runtime_value(2), 1), 2);
  ASSERT_FALSE(hooks_api::g_waited_fds.empty());
  EXPECT_EQ(hooks_api::g_waited_fds.back(), fd);
  hooks_api::g_waited_fds.clear();
  ASSERT_EQ(pread64(fd, buf, runtime_value(2), 1), 2);
  close(fd);
  ASSERT_FALSE(hooks_api::g_waited_fds.empty());
  EXPECT_EQ(hooks_api::g_waited_fds.back(), fd);
}

TEST_F(FortifiedHooks, ReadNamesItsDescriptor) {
  char buf[4];
  ASSERT_EQ(read(fds_[0], buf, runtime_value(2)), 2);
  ASSERT_FALSE(hooks_api::g_waited_fds.empty());
  EXPECT_EQ(hooks_api::g_waited_fds.back(), fds_[0]);
}

}  // namespace
}  // namespace coz
