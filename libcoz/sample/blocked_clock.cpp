// Blocked samples (see blocked_clock.h).
#include "sample/blocked_clock.h"

#include <cmath>

namespace coz {

uint64_t BlockedClock::draw_gap(uint64_t period_ns) {
  // xorshift64*: enough for gaps, and no allocation or lock (hooks may run in signal handlers).
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  uint64_t bits = (state_ * 0x2545F4914F6CDD1Dull) >> 11;             // 53 bits
  double u = (static_cast<double>(bits) + 0.5) / 9007199254740992.0;  // (0, 1)
  double gap = -std::log(u) * static_cast<double>(period_ns);
  return gap < 1 ? 1 : static_cast<uint64_t>(gap);
}

uint64_t BlockedClock::on_wait(uint64_t waited_ns, uint64_t period_ns) {
  if (period_ns == 0) {
    return 0;
  }
  if (until_ns_ < 0) {
    until_ns_ = static_cast<int64_t>(draw_gap(period_ns));
  }
  uint64_t samples = 0;
  int64_t left = until_ns_ - static_cast<int64_t>(waited_ns);
  while (left <= 0) {
    samples++;
    left += static_cast<int64_t>(draw_gap(period_ns));
  }
  until_ns_ = left;
  return samples;
}

uint64_t BlockedClock::speedup_ns(uint64_t waited_ns, uint64_t period_ns, uint64_t delay_ns) {
  if (period_ns == 0 || delay_ns == 0) {
    return 0;
  }
  double x = static_cast<double>(waited_ns) / static_cast<double>(period_ns);
  double held = -std::expm1(-x);  // the chance that the wait held a blocked sample
  if (held <= 0) {
    return 0;
  }
  return static_cast<uint64_t>(static_cast<double>(delay_ns) * x / held + 0.5);
}

}  // namespace coz
