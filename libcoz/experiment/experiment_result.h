// What one experiment measured, computed from counts taken at its start and end: a pure step
// (no clock, no threads), so the arithmetic of eq. 5.1 and Little's law is unit-tested on its
// own. The runner gathers the inputs; record/experiment_record.h writes the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/arrival_pacer.h"
#include "experiment/in_flight.h"
#include "experiment/progress_delays.h"

namespace coz {

// One progress point's counters at one instant.
struct PointCounts {
  uint64_t throughput = 0, begin = 0, end = 0, arrivals = 0;
  uint64_t delay_in_flight_ns = 0;  // delay inserted while its requests were in flight
};

struct PointInput {
  std::string name;
  bool is_latency = false;    // COZ_BEGIN/COZ_END
  bool has_arrivals = false;  // COZ_ARRIVAL (or COZ_BEGIN with amplification)
  PointCounts before, after;
  InFlight in_flight;  // requests in flight over real time during the experiment
};

struct ExperimentInput {
  std::string selected;   // the line's name, or kNoLine
  int speedup = 0;        // percent
  uint64_t delay_ns = 0;  // per selected sample
  uint64_t elapsed_ns = 0;
  uint64_t start_ns = 0;     // since the runner began: where in the run the experiment lies
  uint64_t inserted_ns = 0;  // delays inserted (the ledger's global total)
  // The threads that counted progress visits of their own, with the delays each took
  // (progress_delays.h): the experiment's time is theirs. Visits none of them made keep the
  // global total.
  std::vector<ProgressThread> progress_threads;
  uint64_t selected_samples = 0;
  uint64_t run_id = 0;
  AmplifySettings amplify;
  uint64_t arrival_speedup_total_ns = 0;  // amplification actually given to arrivals
  // The arrival threads' own rate: the sum of the periods measured, how many, over how many
  // threads.
  uint64_t arrival_period_sum_ns = 0, arrivals_with_period = 0, arrival_threads = 0;
  std::vector<PointInput> points;
};

struct PointResult {
  enum class Kind { kThroughput, kLatency, kArrivalsOnly } kind = Kind::kThroughput;
  std::string name;
  uint64_t delta = 0;                     // throughput: visits
  uint64_t arrivals = 0, departures = 0;  // latency: begun and ended
  uint64_t in_flight = 0;                 // latency: requests in flight at the end
  uint64_t in_flight_ns = 0;              // latency: request-ns in flight, delays taken off
  bool has_arrivals = false;
  uint64_t arrival_count = 0;  // COZ_ARRIVAL visits
};

struct ExperimentResult {
  std::string selected;
  int speedup = 0;
  // Elapsed minus the delays the progress-making threads took: the virtual time (eq. 5.1, with
  // progress_delays.h).
  uint64_t duration_ns = 0;
  uint64_t elapsed_ns = 0, inserted_ns = 0, selected_samples = 0;
  // Inserted delays those threads still owed at the end, not taken off the duration.
  uint64_t owed_ns = 0;
  uint64_t start_ns = 0;  // since the run began (analysis compares experiments of like times)
  uint64_t delay_size_ns = 0, delays = 0;  // Coz's fields
  uint64_t run_id = 0;
  bool amplified = false;
  AmplifySettings amplify;
  uint64_t arrival_speedup_total_ns = 0;
  bool has_load = false;
  double load = 0;  // the load achieved: effective arrival rate over the threads' own rate
  std::vector<PointResult> points;
  uint64_t visits = 0;  // progress visits in all (the scheduler lengthens experiments with few)
  // The visits of the least visited progress point among those ever visited in the run (the
  // scheduler shortens experiments only while every such point has plenty); UINT64_MAX if none.
  uint64_t fewest_visits = UINT64_MAX;
};

ExperimentResult compute_experiment_result(const ExperimentInput& in);

}  // namespace coz
