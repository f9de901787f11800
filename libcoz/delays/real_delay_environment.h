// The delay protocol's environment in a profiled process: the monotonic clock, real nanosleeps,
// the thread's own samples (SampleAttribution), and the latency points' delay accounts.
// Threads: every call is the calling thread's, from a hook or its signal handler; all
// async-signal-safe.
#pragma once

#include <cstdint>

#include "attribution/sample_attribution.h"
#include "delays/delay_protocol.h"
#include "points/progress_points.h"

namespace coz {

class RealDelayEnvironment : public DelayEnvironment {
 public:
  RealDelayEnvironment(SampleAttribution& attribution, ProgressPoints& points)
      : attribution_(attribution), points_(points) {}

  uint64_t now_ns() override;
  void sleep_ns(uint64_t ns) override;
  bool collect(ThreadState& t) override { return attribution_.collect(t); }
  // Every request in flight spends `ns` less time in the sped-up program (for Little's law).
  void inserted(uint64_t ns) override;
  uint64_t deadline_after(uint64_t ns) override;

 private:
  SampleAttribution& attribution_;
  ProgressPoints& points_;
};

}  // namespace coz
