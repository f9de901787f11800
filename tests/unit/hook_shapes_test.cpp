// The hook shapes of interpose/hook_support.h, with the runtime's API (hooks_api.h) replaced by
// a recorder: each shape's calls to the runtime, in order, around the real call, and nothing
// at all when no runtime is active.
#include <errno.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interpose/hook_support.h"

namespace coz::hooks_api {

// The recorder: this test binary's only definition of these calls.
bool g_active = true;
std::vector<std::string> g_calls;

bool active() {
  return g_active;
}
void before_wake(const void*) {
  g_calls.push_back("before_wake");
}
void after_release() {
  g_calls.push_back("after_release");
}
void lock_acquired() {
  g_calls.push_back("lock_acquired");
}
void lock_released() {
  g_calls.push_back("lock_released");
}
void before_block() {
  g_calls.push_back("before_block");
}
void after_block(const void*, bool woken) {
  g_calls.push_back(woken ? "after_block(woken)" : "after_block(not woken)");
}

}  // namespace coz::hooks_api

namespace coz::hooks {
namespace {

using Calls = std::vector<std::string>;

class HookShapes : public ::testing::Test {
 protected:
  void SetUp() override {
    hooks_api::g_active = true;
    hooks_api::g_calls.clear();
  }
  // A real call that records itself and returns `rc` (setting errno to `err`).
  auto real_call(int rc, int err = 0) {
    return [rc, err] {
      hooks_api::g_calls.push_back("real");
      errno = err;
      return rc;
    };
  }
  const Calls& calls() const { return hooks_api::g_calls; }
  int key = 0;
};

TEST_F(HookShapes, AnUncontendedLockOnlyCountsTheLock) {
  EXPECT_EQ(locking(&key, real_call(0), EBUSY, real_call(0)), 0);
  EXPECT_EQ(calls(), (Calls{"real", "lock_acquired"}));
}

TEST_F(HookShapes, AContendedLockPaysBlocksIsCreditedThenHoldsTheLock) {
  EXPECT_EQ(locking(&key, real_call(EBUSY), EBUSY, real_call(0)), 0);
  EXPECT_EQ(calls(),
            (Calls{"real", "before_block", "real", "after_block(woken)", "lock_acquired"}));
}

TEST_F(HookShapes, UnlockingPublishesReleasesThenPays) {
  EXPECT_EQ(unlocking(&key, real_call(0)), 0);
  EXPECT_EQ(calls(), (Calls{"before_wake", "real", "lock_released", "after_release"}));
}

TEST_F(HookShapes, AFailedUnlockHoldsTheLockStill) {
  EXPECT_EQ(unlocking(&key, real_call(EPERM)), EPERM);
  EXPECT_EQ(calls(), (Calls{"before_wake", "real", "after_release"}));
}

TEST_F(HookShapes, SignallingOnlyPublishes) {
  EXPECT_EQ(signalling(&key, real_call(0)), 0);
  EXPECT_EQ(calls(), (Calls{"before_wake", "real"}));
}

TEST_F(HookShapes, WaitingPaysBlocksIsCreditedThenPaysTheRest) {
  EXPECT_EQ(waiting(&key, real_call(0), returned_zero), 0);
  EXPECT_EQ(calls(), (Calls{"before_block", "real", "after_block(woken)", "after_release"}));
}

TEST_F(HookShapes, ATimedOutWaitIsNotCreditedAndKeepsItsErrno) {
  EXPECT_EQ(waiting(&key, real_call(-1, ETIMEDOUT), returned_zero), -1);
  EXPECT_EQ(errno, ETIMEDOUT);
  EXPECT_EQ(calls(), (Calls{"before_block", "real", "after_block(not woken)", "after_release"}));
}

TEST_F(HookShapes, ATimedLockHoldsTheLockOnlyWhenItGotIt) {
  EXPECT_EQ(lock_waiting(&key, real_call(0)), 0);
  EXPECT_EQ(calls(), (Calls{"before_block", "real", "after_block(woken)", "lock_acquired"}));
  hooks_api::g_calls.clear();
  EXPECT_EQ(lock_waiting(&key, real_call(ETIMEDOUT)), ETIMEDOUT);
  EXPECT_EQ(calls(), (Calls{"before_block", "real", "after_block(not woken)"}));
}

TEST_F(HookShapes, ASemaphoreTakenAtOnceWaitedForNobody) {
  EXPECT_EQ(trying_then_waiting(&key, real_call(0), real_call(0)), 0);
  EXPECT_EQ(calls(), (Calls{"real"}));
}

TEST_F(HookShapes, ASemaphoreThatWouldBlockWaitsAsAnyWait) {
  errno = 7;
  EXPECT_EQ(trying_then_waiting(&key, real_call(-1, EAGAIN), real_call(0)), 0);
  EXPECT_EQ(calls(),
            (Calls{"real", "before_block", "real", "after_block(woken)", "after_release"}));
  hooks_api::g_calls.clear();
  EXPECT_EQ(trying_then_waiting(&key, real_call(-1, EINVAL), real_call(0)), -1);
  EXPECT_EQ(errno, EINVAL) << "an error of the try is the call's";
  EXPECT_EQ(calls(), (Calls{"real"}));
}

TEST_F(HookShapes, EveryArrivalAtABarrierPaysAndPublishesBeforeWaiting) {
  EXPECT_EQ(meeting(&key, real_call(0), returned_zero), 0);
  EXPECT_EQ(calls(),
            (Calls{"before_block", "before_wake", "real", "after_block(woken)", "after_release"}));
}

TEST_F(HookShapes, WithNoRuntimeOnlyTheRealCallRuns) {
  hooks_api::g_active = false;
  locking(&key, real_call(EBUSY), EBUSY, real_call(0));
  unlocking(&key, real_call(0));
  waiting(&key, real_call(0), returned_zero);
  lock_waiting(&key, real_call(0));
  trying_then_waiting(&key, real_call(-1, EAGAIN), real_call(0));
  meeting(&key, real_call(0), returned_zero);
  releasing(&key, real_call(0));
  EXPECT_EQ(calls(), (Calls{"real", "real", "real", "real", "real", "real", "real"}));
}

}  // namespace
}  // namespace coz::hooks
