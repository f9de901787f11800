// Little's law inputs for one latency point over one experiment (dissertation section 5.2.3.4):
// mean latency W = L / lambda, with L the time-averaged number of requests in flight and lambda
// the arrival rate, both over effective time; so W = (integral of in-flight over effective
// time) / arrivals. Coz logs only the number in flight at the end of an experiment, which is
// zero for an end-to-end run; this integrates it.
//
// Pure: the caller samples the BEGIN/END totals and the effective time between samples.
#pragma once

#include <cstdint>

namespace coz {

class InFlight {
 public:
  // Requests begun and not yet ended; never negative (END may be counted before its BEGIN).
  static uint64_t count(uint64_t begun, uint64_t ended) { return begun > ended ? begun - ended : 0; }

  // `effective_ns` of effective time passed with count(begun, ended) requests in flight. The
  // step may be negative when a burst of inserted delay is counted before the real time that
  // holds it; the sum over an experiment is its effective duration.
  void add(uint64_t begun, uint64_t ended, double effective_ns) {
    integral_ns_ += static_cast<double>(count(begun, ended)) * effective_ns;
  }
  // Request-nanoseconds in flight so far (0 if the steps summed below zero).
  uint64_t integral_ns() const { return integral_ns_ > 0 ? static_cast<uint64_t>(integral_ns_ + 0.5) : 0; }

  // Mean latency from an experiment's integral and arrivals, or 0 without arrivals.
  static double mean_latency_ns(uint64_t integral_ns, uint64_t arrivals) {
    return arrivals ? static_cast<double>(integral_ns) / static_cast<double>(arrivals) : 0;
  }

 private:
  double integral_ns_ = 0;
};

}  // namespace coz
