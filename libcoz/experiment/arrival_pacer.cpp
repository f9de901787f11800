// Per-thread arrival speedups (see arrival_pacer.h).
#include "experiment/arrival_pacer.h"

namespace coz {

void ArrivalPacer::reset() {
  seen_ = 0;
  started_ = false;
  start_ns_ = start_paused_ns_ = start_arrivals_ = 0;
  period_ns_.store(0, std::memory_order_relaxed);
}

uint64_t ArrivalPacer::on_arrivals(const AmplifySettings& settings, uint64_t arrivals,
                                   uint64_t now_ns, uint64_t paused_ns) {
  if (arrivals <= seen_) {
    return 0;
  }
  uint64_t fresh = arrivals - seen_;
  seen_ = arrivals;
  if (!started_) {
    // The window opens at the first observation; the arrivals before it have no known period
    // and an unknown start, so they earn nothing.
    started_ = true;
    start_ns_ = now_ns;
    start_paused_ns_ = paused_ns;
    start_arrivals_ = arrivals;
    return 0;
  } else {
    uint64_t real = now_ns - start_ns_;
    uint64_t paused = paused_ns - start_paused_ns_;
    uint64_t own = real > paused ? real - paused : 0;
    period_ns_.store(own / (arrivals - start_arrivals_), std::memory_order_relaxed);
  }
  uint64_t period = period_ns_.load(std::memory_order_relaxed);
  uint64_t per_arrival = settings.arrival_speedup_ns;
  if (settings.load > 1.0) {
    per_arrival = static_cast<uint64_t>(static_cast<double>(period) * (1.0 - 1.0 / settings.load));
  }
  if (period != 0 && per_arrival > period / 100 * 99) {
    per_arrival = period / 100 * 99;
  }
  return fresh * per_arrival;
}

}  // namespace coz
