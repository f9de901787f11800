// The pure step from an experiment's counts to its result (see experiment_result.h).
#include "experiment/experiment_result.h"

#include <algorithm>

namespace coz {

ExperimentResult compute_experiment_result(const ExperimentInput& in) {
  ExperimentResult r;
  r.selected = in.selected;
  r.speedup = in.speedup;
  r.elapsed_ns = in.elapsed_ns;
  r.start_ns = in.start_ns;
  r.inserted_ns = in.inserted_ns;
  r.selected_samples = in.selected_samples;
  // Coz's fields: delays of delay-size each (with amplification, the total over delay-size).
  r.delay_size_ns = in.delay_ns;
  r.delays = in.delay_ns ? in.inserted_ns / in.delay_ns : 0;
  r.run_id = in.run_id;

  // The experiment's visits, to weigh each thread's delays by the visits it made.
  uint64_t visits = 0;
  for (const PointInput& p : in.points) {
    visits += p.is_latency ? (p.after.begin - p.before.begin) + (p.after.end - p.before.end)
                           : p.after.throughput - p.before.throughput;
  }
  TakenDelays taken = delays_taken(in.inserted_ns, visits, in.progress_threads);
  r.owed_ns = taken.owed_ns;
  r.duration_ns = in.elapsed_ns > taken.taken_ns ? in.elapsed_ns - taken.taken_ns : 0;
  // Delay inserted while requests were in flight is taken off their time in the share the
  // progress-making threads took of it (the rest they still owed, and never paused for).
  double taken_share = in.inserted_ns == 0 ? 1.0
                                           : static_cast<double>(taken.taken_ns) /
                                                 static_cast<double>(in.inserted_ns);

  uint64_t arrivals = 0;
  for (const PointInput& p : in.points) {
    arrivals += p.after.arrivals - p.before.arrivals;
    PointResult out;
    out.name = p.name;
    out.has_arrivals = p.has_arrivals;
    out.arrival_count = p.after.arrivals - p.before.arrivals;
    if (p.is_latency) {
      out.kind = PointResult::Kind::kLatency;
      out.arrivals = p.after.begin - p.before.begin;
      out.departures = p.after.end - p.before.end;
      out.in_flight = InFlight::count(p.after.begin, p.after.end);
      // Delay inserted while requests were in flight is time they did not spend in the sped-up
      // program.
      InFlight integral = p.in_flight;
      integral.remove(
          static_cast<double>(p.after.delay_in_flight_ns - p.before.delay_in_flight_ns) *
          taken_share);
      out.in_flight_ns = integral.integral_ns();
      r.visits += out.arrivals + out.departures;
      if (p.after.begin + p.after.end != 0) {
        r.fewest_visits = std::min(r.fewest_visits, out.arrivals + out.departures);
      }
    } else if (p.after.throughput != 0 || !p.has_arrivals) {
      out.kind = PointResult::Kind::kThroughput;
      out.delta = p.after.throughput - p.before.throughput;
      r.visits += out.delta;
      if (p.after.throughput != 0) {
        r.fewest_visits = std::min(r.fewest_visits, out.delta);
      }
    } else {
      out.kind = PointResult::Kind::kArrivalsOnly;  // COZ_ARRIVAL alone: no throughput record
    }
    r.points.push_back(out);
  }

  r.amplified = in.amplify.requested();
  if (r.amplified) {
    r.amplify = in.amplify;
    r.arrival_speedup_total_ns = in.arrival_speedup_total_ns;
    // Each arrival thread's own rate is 1 / its period; with k threads the base rate is k over
    // the mean period of their arrivals. The load is the effective rate over that.
    if (in.arrivals_with_period > 0 && in.arrival_threads > 0 && r.duration_ns > 0 &&
        arrivals > 0) {
      double mean_period = static_cast<double>(in.arrival_period_sum_ns) /
                           static_cast<double>(in.arrivals_with_period);
      double rate = static_cast<double>(arrivals) / static_cast<double>(r.duration_ns);  // per ns
      r.has_load = true;
      r.load = rate * mean_period / static_cast<double>(in.arrival_threads);
    }
  }
  return r;
}

}  // namespace coz
