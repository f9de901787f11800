// The hook shapes of interpose/hook_support.h, with the runtime's API (hooks_api.h) replaced by
// a recorder: each shape's calls to the runtime, in order, around the real call, and nothing
// at all when no runtime is active; and errno, after every shape, as the real call left it.
#include <errno.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "interpose/hook_support.h"

namespace coz::hooks_api {

// The recorder: this test binary's only definition of these calls. Each sets errno to a sentinel,
// as a delay's sleep may, so a shape that does not keep the real call's errno is caught.
bool g_active = true;
std::vector<std::string> g_calls;
constexpr int kSentinel = EINTR;

void record(const std::string& call) {
  g_calls.push_back(call);
  errno = kSentinel;
}

bool active() {
  return g_active;
}
void before_wake(const void*) {
  record("before_wake");
}
void after_release() {
  record("after_release");
}
void lock_acquired() {
  record("lock_acquired");
}
void lock_released() {
  record("lock_released");
}
void before_block() {
  record("before_block");
}
void before_lock_block() {
  record("before_lock_block");
}
void before_meeting() {
  record("before_meeting");
}
void after_block(const void*, bool woken) {
  record(woken ? "after_block(woken)" : "after_block(not woken)");
}

}  // namespace coz::hooks_api

// What the fast path reads (hooks/quiet_hooks.h), defined here as the runtime defines them:
// no thread state, so every shape takes the full path, unless a test sets one.
namespace coz {
__thread __attribute__((tls_model("initial-exec"))) ThreadState* t_thread_state = nullptr;
__thread __attribute__((tls_model("initial-exec"))) int quiet_hooks::t_inside = 0;
std::atomic<ExperimentState*> quiet_hooks::g_experiment{nullptr};
std::atomic<HandoffTable*> quiet_hooks::g_handoffs{nullptr};
}  // namespace coz

namespace coz::hooks {
namespace {

using Calls = std::vector<std::string>;

class HookShapes : public ::testing::Test {
 protected:
  void SetUp() override {
    hooks_api::g_active = true;
    hooks_api::g_calls.clear();
  }
  // A real call that records itself and returns `rc`, setting errno to `err`, or by default to a
  // value of its own (never the recorder's sentinel), so errno after a shape tells whose it is.
  auto real_call(int rc, int err = 0) {
    if (err == 0) {
      err = next_errno++;
    }
    return [this, rc, err] {
      hooks_api::g_calls.push_back("real");
      errno = err;
      real_errno = err;
      return rc;
    };
  }
  // The shape's result is `want`, and errno is what the last real call left. Read errno first:
  // the shape has just returned.
  ::testing::AssertionResult returns(int got, int want) {
    int err = errno;
    if (got != want) {
      return ::testing::AssertionFailure() << "returned " << got << ", not " << want;
    }
    if (err != real_errno) {
      return ::testing::AssertionFailure()
             << "errno " << err << " after the shape, but the real call left " << real_errno;
    }
    return ::testing::AssertionSuccess();
  }
  const Calls& calls() const { return hooks_api::g_calls; }
  int key = 0;
  int real_errno = -1;
  int next_errno = 1000;
};

TEST_F(HookShapes, AnUncontendedLockOnlyCountsTheLock) {
  EXPECT_TRUE(returns(locking(&key, real_call(0), EBUSY, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real", "lock_acquired"}));
}

TEST_F(HookShapes, ATryLockThatTakesTheLockCountsIt) {
  EXPECT_TRUE(returns(took_lock(real_call(0)()), 0));
  EXPECT_EQ(calls(), (Calls{"real", "lock_acquired"}));
}

TEST_F(HookShapes, ATryLockThatFailsChangesNothing) {
  EXPECT_TRUE(returns(took_lock(real_call(EBUSY)()), EBUSY));
  EXPECT_EQ(calls(), (Calls{"real"}));
}

TEST_F(HookShapes, AContendedLockPaysBlocksIsCreditedThenHoldsTheLock) {
  EXPECT_TRUE(returns(locking(&key, real_call(EBUSY), EBUSY, real_call(0)), 0));
  EXPECT_EQ(calls(),
            (Calls{"real", "before_lock_block", "real", "lock_acquired", "after_block(woken)"}));
}

TEST_F(HookShapes, UnlockingPublishesReleasesThenPays) {
  EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"before_wake", "real", "lock_released", "after_release"}));
}

TEST_F(HookShapes, AFailedUnlockHoldsTheLockStill) {
  EXPECT_TRUE(returns(unlocking(&key, real_call(EPERM)), EPERM));
  EXPECT_EQ(calls(), (Calls{"before_wake", "real", "after_release"}));
}

TEST_F(HookShapes, SignallingOnlyPublishes) {
  EXPECT_TRUE(returns(signalling(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"before_wake", "real"}));
}

TEST_F(HookShapes, WaitingPaysBlocksIsCreditedThenPaysTheRest) {
  EXPECT_TRUE(returns(waiting(&key, real_call(0), returned_zero), 0));
  EXPECT_EQ(calls(), (Calls{"before_block", "real", "after_block(woken)", "after_release"}));
}

TEST_F(HookShapes, ATimedOutWaitIsNotCreditedAndKeepsItsErrno) {
  EXPECT_TRUE(returns(waiting(&key, real_call(-1, ETIMEDOUT), returned_zero), -1));
  EXPECT_EQ(real_errno, ETIMEDOUT);
  EXPECT_EQ(calls(), (Calls{"before_block", "real", "after_block(not woken)", "after_release"}));
}

TEST_F(HookShapes, ATimedLockHoldsTheLockOnlyWhenItGotIt) {
  EXPECT_TRUE(returns(lock_waiting(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"before_lock_block", "real", "lock_acquired", "after_block(woken)"}));
  hooks_api::g_calls.clear();
  EXPECT_TRUE(returns(lock_waiting(&key, real_call(ETIMEDOUT)), ETIMEDOUT));
  EXPECT_EQ(calls(), (Calls{"before_lock_block", "real", "after_block(not woken)"}));
}

TEST_F(HookShapes, ASemaphoreTakenAtOnceWaitedForNobody) {
  EXPECT_TRUE(returns(trying_then_waiting(&key, real_call(0), real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real"}));
}

TEST_F(HookShapes, ASemaphoreThatWouldBlockWaitsAsAnyWait) {
  errno = 7;
  EXPECT_TRUE(returns(trying_then_waiting(&key, real_call(-1, EAGAIN), real_call(0)), 0));
  EXPECT_EQ(calls(),
            (Calls{"real", "before_block", "real", "after_block(woken)", "after_release"}));
  hooks_api::g_calls.clear();
  EXPECT_TRUE(returns(trying_then_waiting(&key, real_call(-1, EINVAL), real_call(0)), -1));
  EXPECT_EQ(real_errno, EINVAL) << "an error of the try is the call's";
  EXPECT_EQ(calls(), (Calls{"real"}));
}

TEST_F(HookShapes, EveryArrivalAtABarrierPaysAndPublishesBeforeWaiting) {
  EXPECT_TRUE(returns(meeting(&key, real_call(0), returned_zero), 0));
  EXPECT_EQ(calls(), (Calls{"before_meeting", "before_wake", "real", "after_block(woken)",
                            "after_release"}));
}

TEST_F(HookShapes, ReleasingPublishesReleasesThenPays) {
  EXPECT_TRUE(returns(releasing(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"before_wake", "real", "after_release"}));
}

TEST_F(HookShapes, WithNoRuntimeOnlyTheRealCallRuns) {
  hooks_api::g_active = false;
  EXPECT_TRUE(returns(locking(&key, real_call(EBUSY), EBUSY, real_call(0)), 0));
  EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));
  EXPECT_TRUE(returns(waiting(&key, real_call(0), returned_zero), 0));
  EXPECT_TRUE(returns(lock_waiting(&key, real_call(0)), 0));
  EXPECT_TRUE(returns(trying_then_waiting(&key, real_call(-1, EAGAIN), real_call(0)), 0));
  EXPECT_TRUE(returns(meeting(&key, real_call(0), returned_zero), 0));
  EXPECT_TRUE(returns(releasing(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real", "real", "real", "real", "real", "real", "real"}));
}

// The fast path: a thread that settled at the ledger's current word (ThreadDelays::quiet_word).
class QuietHooks : public HookShapes {
 protected:
  void SetUp() override {
    HookShapes::SetUp();
    experiment.ledger.begin(1000);
    LocalDelays other;
    experiment.ledger.absorb(other, 5000);  // another thread ran ahead: the total is 5 us
    state.delays.epoch = experiment.ledger.epoch();
    state.delays.ns = 4500;  // this one owes 0.5 us, less than a sample's worth
    state.quiet_word = experiment.ledger.word();
    t_thread_state = &state;
    quiet_hooks::g_handoffs.store(&handoffs);
    quiet_hooks::g_experiment.store(&experiment);
  }
  void TearDown() override {
    t_thread_state = nullptr;
    quiet_hooks::g_experiment.store(nullptr);
  }
  // Another thread's selected-line sample raises the total: the word changes.
  void others_run_ahead() { experiment.ledger.absorb(ahead, 9000); }
  LocalDelays ahead;  // a thread that runs the selected line
  ExperimentState experiment;
  HandoffTable handoffs;
  ThreadState state;
};

TEST_F(QuietHooks, ALockAndUnlockOnlyCallTheRealFunctions) {
  EXPECT_TRUE(returns(locking(&key, real_call(0), EBUSY, real_call(0)), 0));
  EXPECT_EQ(state.locks_held, 1);
  EXPECT_EQ(state.lock_debt_ns, 500u) << "the debt carried in, as lock_acquired notes it";
  EXPECT_EQ(state.lock_epoch, experiment.ledger.epoch());
  EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));
  EXPECT_EQ(state.locks_held, 0);
  EXPECT_EQ(calls(), (Calls{"real", "real"}));
  EXPECT_EQ(handoffs.read(&key, experiment.ledger.epoch()), 4500u)
      << "the unlock published the thread's total, as before_wake does";
}

TEST_F(QuietHooks, SignallingAndReleasingPublishOnly) {
  int other_key = 0;
  EXPECT_TRUE(returns(signalling(&key, real_call(0)), 0));
  EXPECT_TRUE(returns(releasing(&other_key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real", "real"}));
  EXPECT_EQ(handoffs.read(&key, experiment.ledger.epoch()), 4500u);
  EXPECT_EQ(handoffs.read(&other_key, experiment.ledger.epoch()), 4500u);
}

TEST_F(QuietHooks, AContendedLockTakesTheFullPath) {
  EXPECT_TRUE(returns(locking(&key, real_call(EBUSY), EBUSY, real_call(0)), 0));
  EXPECT_EQ(calls(),
            (Calls{"real", "before_lock_block", "real", "lock_acquired", "after_block(woken)"}));
}

TEST_F(QuietHooks, AThreadOwingNothingWaitsOnTheFastPath) {
  state.delays.ns = 5000;  // caught up with the global total
  EXPECT_TRUE(returns(locking(&key, real_call(EBUSY), EBUSY, real_call(0)), 0));
  EXPECT_TRUE(returns(waiting(&key, real_call(0), returned_zero), 0));
  EXPECT_TRUE(returns(meeting(&key, real_call(0), returned_zero), 0));
  EXPECT_EQ(calls(), (Calls{"real", "real", "real", "real"}));
  EXPECT_EQ(state.locks_held, 1);
  EXPECT_EQ(state.lock_debt_ns, 0u) << "a wait returning with the lock takes it afresh";
  EXPECT_EQ(handoffs.read(&key, experiment.ledger.epoch()), 5000u)
      << "a barrier's arrival publishes its total";
}

TEST_F(QuietHooks, ATotalThatRisesDuringAWaitIsCreditedAsOnTheFullPath) {
  state.delays.ns = 5000;
  auto wait = [this] {
    others_run_ahead();
    return real_call(0)();
  };
  EXPECT_TRUE(returns(locking(&key, real_call(EBUSY), EBUSY, wait), 0));
  EXPECT_EQ(calls(), (Calls{"real", "real", "after_block(woken)", "lock_acquired"}));
  hooks_api::g_calls.clear();
  state.quiet_word = experiment.ledger.word();
  state.delays.ns = experiment.ledger.global_ns();
  EXPECT_TRUE(returns(waiting(&key, wait, returned_zero), 0));
  EXPECT_EQ(calls(), (Calls{"real", "after_block(woken)", "after_release"}));
}

TEST_F(QuietHooks, AWaitOnTheFastPathIsTimedWhereSamplesComeInLumps) {
  // The wake's credit needs when the wait began (DelayProtocol::credit_woken, RecentLumps); with
  // samples of one period it is not read.
  state.delays.ns = 5000;
  uint64_t started = 0;
  auto wait = [&] {
    started = state.block_start_ns;
    others_run_ahead();
    return real_call(0)();
  };
  EXPECT_TRUE(returns(waiting(&key, wait, returned_zero), 0));
  EXPECT_EQ(started, 0u);
  state.quiet_word = experiment.ledger.word();
  state.delays.ns = experiment.ledger.global_ns();
  experiment.period_ns.store(1000000);
  experiment.lumpy_samples.store(true);
  EXPECT_TRUE(returns(waiting(&key, wait, returned_zero), 0));
  EXPECT_NE(started, 0u);
  state.quiet_word = experiment.ledger.word();
  state.delays.ns = experiment.ledger.global_ns();
  auto slow = [this] {
    usleep(2000);
    return real_call(0)();
  };
  auto timing_out = [this] {
    usleep(2000);
    return real_call(ETIMEDOUT)();
  };
  uint64_t before = platform::monotonic_ns();
  EXPECT_TRUE(returns(waiting(&key, slow, returned_zero), 0));
  EXPECT_EQ(state.block_start_ns, 0u) << "a wait that ends quiet leaves no start behind";
  uint64_t bucket = experiment.wait_bucket_ns();
  uint64_t after = platform::monotonic_ns();
  EXPECT_GE(state.waits.blocked_between(before, after, bucket), 1000000u)
      << "it is one of the thread's recent waits";
  state.waits.clear();
  EXPECT_TRUE(returns(waiting(&key, timing_out, returned_zero), ETIMEDOUT));
  EXPECT_EQ(state.waits.blocked_between(before, platform::monotonic_ns(), bucket), 0u)
      << "a timed-out wait is not";
}

TEST_F(QuietHooks, OnceTheTotalRisesEveryShapeTakesTheFullPath) {
  others_run_ahead();
  EXPECT_TRUE(returns(locking(&key, real_call(0), EBUSY, real_call(0)), 0));
  EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));
  EXPECT_TRUE(returns(signalling(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real", "lock_acquired", "before_wake", "real", "lock_released",
                            "after_release", "before_wake", "real"}));
  EXPECT_EQ(state.locks_held, 0) << "the full path counts locks (the recorder does not)";
}

TEST_F(QuietHooks, ATotalThatRisesDuringAnUnlockIsPaidAfterIt) {
  auto unlock = [this] {
    others_run_ahead();
    return real_call(0)();
  };
  EXPECT_TRUE(returns(unlocking(&key, unlock), 0));
  EXPECT_EQ(calls(), (Calls{"real", "after_release"}));
}

TEST_F(QuietHooks, APacedRemainderKeepsTheFastPathUntilItsPieceIsDue) {
  // Quiet owing more than the carry (DelayProtocol::take_paced): the hooks read the clock every
  // kPieceHooks-th hook, and a piece that is not due yet changes nothing.
  state.piece_due = UINT64_MAX;
  for (uint32_t i = 0; i < 2 * quiet_hooks::kPieceHooks; i++) {
    EXPECT_TRUE(returns(locking(&key, real_call(0), EBUSY, real_call(0)), 0));
    EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));
  }
  EXPECT_EQ(calls(), Calls(4 * quiet_hooks::kPieceHooks, "real"));
}

TEST_F(QuietHooks, APieceThatComesDueSendsEveryHookToTheFullPathUntilOnePaysIt) {
  // Once due, the thread is no longer quiet: a hook on the full path that pays nothing (the
  // uncontended lock) must not let the next ones back on the fast path before the unlock pays.
  state.piece_due = 1;  // long past
  state.piece_hooks = 2;
  EXPECT_TRUE(returns(locking(&key, real_call(0), EBUSY, real_call(0)), 0));  // no clock read
  EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));                     // reads it: due
  EXPECT_TRUE(returns(locking(&key, real_call(0), EBUSY, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real", "before_wake", "real", "lock_released", "after_release", "real",
                            "lock_acquired"}));
  EXPECT_EQ(state.quiet_word, kNotQuiet);
}

TEST_F(QuietHooks, NotInsideTheRuntimeNorWithSamplesPending) {
  quiet_hooks::t_inside = 1;
  hooks_api::g_active = false;  // inside the runtime, hooks find none
  EXPECT_TRUE(returns(unlocking(&key, real_call(0)), 0));
  quiet_hooks::t_inside = 0;
  hooks_api::g_active = true;
  state.pending_selected = 1;
  EXPECT_TRUE(returns(signalling(&key, real_call(0)), 0));
  EXPECT_EQ(calls(), (Calls{"real", "before_wake", "real"}));
}

}  // namespace
}  // namespace coz::hooks
