// Blocked samples (see blocked_clock.h).
#include "sample/blocked_clock.h"

#include "base/plain_math.h"

namespace coz {

double BlockedClock::draw_uniform() {
  // xorshift64*: enough for gaps, and no allocation or lock (hooks may run in signal handlers).
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  uint64_t bits = (state_ * 0x2545F4914F6CDD1Dull) >> 11;         // 53 bits
  return (static_cast<double>(bits) + 0.5) / 9007199254740992.0;  // (0, 1)
}

double BlockedClock::draw_normal() {
  // Marsaglia's polar method: a point drawn uniformly in the unit disc gives a normal variate
  // with no trigonometry.
  for (;;) {
    double u = 2 * draw_uniform() - 1;
    double v = 2 * draw_uniform() - 1;
    double s = u * u + v * v;
    if (s > 0 && s < 1) {
      return u * plain_math::square_root(-2 * plain_math::ln(s) / s);
    }
  }
}

uint64_t BlockedClock::draw_gap(uint64_t period_ns) {
  double gap = -plain_math::ln(draw_uniform()) * static_cast<double>(period_ns);
  return gap < 1 ? 1 : static_cast<uint64_t>(gap);
}

uint64_t BlockedClock::on_wait(uint64_t waited_ns, uint64_t period_ns) {
  if (period_ns == 0) {
    return 0;
  }
  if (until_ns_ < 0) {
    until_ns_ = static_cast<int64_t>(draw_gap(period_ns));
  }
  int64_t left = until_ns_ - static_cast<int64_t>(waited_ns);
  if (left > 0) {
    until_ns_ = left;
    return 0;
  }
  // The first sample falls `until_ns_` into the wait. Past it, the samples in the rest of the
  // wait are Poisson with mean rest / period; a long wait (an hour's waitpid) takes the normal
  // approximation in constant time rather than a draw per period, and the clock starts afresh
  // (memoryless, so nothing is lost).
  double rest = static_cast<double>(-left) / static_cast<double>(period_ns);
  if (rest > kDrawsPerWait) {
    double more = rest + plain_math::square_root(rest) * draw_normal();
    until_ns_ = static_cast<int64_t>(draw_gap(period_ns));
    return 1 + static_cast<uint64_t>(more > 0 ? more + 0.5 : 0);
  }
  uint64_t samples = 0;
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
  double held = -plain_math::exp_minus_one(-x);  // the chance that the wait held a blocked sample
  if (held <= 0) {
    return 0;
  }
  return static_cast<uint64_t>(static_cast<double>(delay_ns) * x / held + 0.5);
}

}  // namespace coz
