// Little's law inputs for one latency point over one experiment (dissertation section 5.2.3.4):
// mean latency W = L / lambda, with L the time-averaged number of requests in flight and lambda
// the arrival rate, both over effective time; so W = (integral of in-flight over effective
// time) / arrivals. Coz logs only the number in flight at the end of an experiment, which is
// zero for an end-to-end run; this integrates it.
//
// Effective time is real time minus inserted delays, so the integral is kept as two parts: real
// time with requests in flight (sampled: the caller adds the count at regular intervals, which is
// unbiased because the samples are independent of the program), and the delay inserted while
// requests were in flight, weighted by their number (exact: recorded where the delay is
// inserted, when the in-flight count is right; a 1 ms tick would miss which requests a
// sub-millisecond delay overlapped).
//
// Pure: the caller passes counts and times.
#pragma once

#include <cstdint>

namespace coz {

class InFlight {
 public:
  // Requests begun and not yet ended; never negative (END may be counted before its BEGIN).
  static uint64_t count(uint64_t begun, uint64_t ended) {
    return begun > ended ? begun - ended : 0;
  }

  // `real_ns` of real time passed with count(begun, ended) requests in flight.
  void add(uint64_t begun, uint64_t ended, double real_ns) {
    integral_ns_ += static_cast<double>(count(begun, ended)) * real_ns;
  }
  // Delay inserted while requests were in flight, in request-nanoseconds (delay x count): time
  // those requests did not spend in the sped-up program.
  void remove(double request_ns) { integral_ns_ -= request_ns; }
  // Request-nanoseconds in flight so far (0 if the steps summed below zero).
  uint64_t integral_ns() const {
    return integral_ns_ > 0 ? static_cast<uint64_t>(integral_ns_ + 0.5) : 0;
  }

  // Mean latency from an experiment's integral and arrivals, or 0 without arrivals.
  static double mean_latency_ns(uint64_t integral_ns, uint64_t arrivals) {
    return arrivals ? static_cast<double>(integral_ns) / static_cast<double>(arrivals) : 0;
  }

 private:
  double integral_ns_ = 0;
};

}  // namespace coz
