// The sampling engines behind one interface: each reads its own signals' form, names itself and
// says its resolution; the choice gives the timer where asked without testing perf_event.
#include <gtest/gtest.h>
#include <signal.h>

#include "base/platform.h"
#include "sample/sampler_choice.h"
#include "sample/timer_sampler.h"

namespace coz {
namespace {

siginfo_t descriptor_signal(int fd) {
  siginfo_t info = {};
  info.si_code = POLL_IN;
  info.si_fd = fd;
  return info;
}

siginfo_t timer_signal(int token, int overrun) {
  siginfo_t info = {};
  info.si_code = SI_TIMER;
  info.si_value.sival_ptr =
      reinterpret_cast<void*>(static_cast<uintptr_t>(platform::kTimerSampleTag | uint64_t(token)));
  info.si_overrun = overrun;
  return info;
}

const siginfo_t& info_of(const siginfo_t& info) {
  return info;
}

// The sampling thread's signal: from the thread's timer (SI_TIMER), or sent at once (SI_QUEUE).
siginfo_t clock_signal(int token, int code = SI_TIMER) {
  siginfo_t info = {};
  info.si_code = code;
  info.si_value.sival_ptr =
      reinterpret_cast<void*>(static_cast<uintptr_t>(platform::kClockSampleTag | uint64_t(token)));
  return info;
}

TEST(SamplerEngines, TheSamplingThreadsSignalsAreItsOwn) {
  auto clock = make_sampler(SamplerKind::kClock, SamplerSettings{});
  auto timer = make_sampler(SamplerKind::kTimer, SamplerSettings{});
  SignalSample s;
  ASSERT_TRUE(clock->reads_signal(clock_signal(5), &s));
  EXPECT_EQ(s.token, 5);
  EXPECT_EQ(s.overrun, 0);
  ASSERT_TRUE(clock->reads_signal(clock_signal(6, SI_QUEUE), &s));
  EXPECT_EQ(s.token, 6);
  EXPECT_EQ(platform::sample_token(&info_of(clock_signal(5))), 5);
  EXPECT_EQ(platform::sample_token(&info_of(clock_signal(6, SI_QUEUE))), 6);
  EXPECT_FALSE(clock->reads_signal(timer_signal(5, 0), &s));
  EXPECT_FALSE(timer->reads_signal(clock_signal(5), &s));
  EXPECT_FALSE(timer->reads_signal(clock_signal(6, SI_QUEUE), &s));
  EXPECT_STREQ(clock->name(), "clock");
  EXPECT_EQ(clock->describe(1000000), "clock, 1 ms resolution");
  EXPECT_EQ(choose_sampler(SamplerRequest::kClock).kind, SamplerKind::kClock);
}

TEST(SamplerEngines, EachReadsItsOwnSignalsAndNotTheOthers) {
  auto perf = make_sampler(SamplerKind::kPerf, SamplerSettings{});
  auto timer = make_sampler(SamplerKind::kTimer, SamplerSettings{});
  SignalSample s;
  ASSERT_TRUE(perf->reads_signal(descriptor_signal(7), &s));
  EXPECT_EQ(s.token, 7);
  EXPECT_EQ(s.overrun, 0);
  EXPECT_FALSE(perf->reads_signal(timer_signal(3, 2), &s));
  ASSERT_TRUE(timer->reads_signal(timer_signal(3, 2), &s));
  EXPECT_EQ(s.token, 3);
  EXPECT_EQ(s.overrun, 2) << "a timer's signal stands for its overruns too";
  EXPECT_FALSE(timer->reads_signal(descriptor_signal(7), &s));
}

TEST(SamplerEngines, TheProgramsOwnSignalsAreNoEnginesSample) {
  siginfo_t queued = {};
  queued.si_code = SI_QUEUE;
  siginfo_t own_timer = timer_signal(3, 0);
  own_timer.si_value.sival_ptr = reinterpret_cast<void*>(uintptr_t{42});  // its own value, no tag
  SignalSample s;
  for (SamplerKind kind : {SamplerKind::kPerf, SamplerKind::kTimer, SamplerKind::kClock}) {
    auto engine = make_sampler(kind, SamplerSettings{});
    EXPECT_FALSE(engine->reads_signal(queued, &s)) << engine->name();
    EXPECT_FALSE(engine->reads_signal(own_timer, &s)) << engine->name();
  }
}

TEST(SamplerEngines, NamesAndResolutionAsTheSummaryShowsThem) {
  auto perf = make_sampler(SamplerKind::kPerf, SamplerSettings{});
  auto timer = make_sampler(SamplerKind::kTimer, SamplerSettings{});
  EXPECT_STREQ(perf->name(), "perf");
  EXPECT_EQ(perf->describe(1000000), "perf");
  EXPECT_EQ(perf->resolution_ns(), 0u);
  EXPECT_STREQ(timer->name(), "timer");
  EXPECT_EQ(timer->resolution_ns(), 0u) << "nothing measured before the first signal";
  EXPECT_EQ(timer->describe(1000000), "timer, 1 ms resolution") << "the period until then";
}

// A timer signal's CPU time in periods: whole ones, the remainder rounded up with its chance, so
// over every draw the periods are the time's exactly and a thread's last remainder is not lost.
TEST(SamplerEngines, CPUTimeBecomesPeriodsExactlyOnAverage) {
  const uint64_t period = 1000;
  for (uint64_t ns : {0ull, 999ull, 1000ull, 2500ull, 4000ull, 4001ull}) {
    uint64_t sum = 0;
    for (uint64_t draw = 0; draw < period; draw++) {
      uint32_t periods = periods_of(ns, period, draw * 7919);
      EXPECT_GE(periods, ns / period);
      EXPECT_LE(periods, ns / period + 1);
      sum += periods;
    }
    EXPECT_EQ(sum, ns) << "over one draw of each remainder, the time in periods";
  }
  EXPECT_EQ(periods_of(4000000, 1000000, 12345), 4u) << "a 4 ms tick is 4 periods, always";
  EXPECT_EQ(periods_of(~0ull, 1, 0), 1u << 20) << "capped";
}

TEST(SamplerEngines, TheTimerAskedForIsChosenWithoutATest) {
  SamplerChoice choice = choose_sampler(SamplerRequest::kTimer);
  EXPECT_EQ(choice.kind, SamplerKind::kTimer);
  EXPECT_TRUE(choice.note.empty());
  EXPECT_TRUE(choice.error.empty());
}

}  // namespace
}  // namespace coz
