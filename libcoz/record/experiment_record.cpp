// Writing an experiment's records (see experiment_record.h).
#include "record/experiment_record.h"

#include "record/vocabulary.h"

namespace coz {

void append_experiment(const ExperimentResult& r, RecordBuilder* block) {
  block->begin(vocab::kExperiment)
      .field(vocab::key::kSelected, r.selected)
      .field(vocab::key::kSpeedup, r.speedup / 100.0, 2)
      .field(vocab::key::kDuration, r.duration_ns)
      .field(vocab::key::kSelectedSamples, r.selected_samples)
      .field(vocab::key::kElapsed, r.elapsed_ns)
      .field(vocab::key::kDelays, r.delays)
      .field(vocab::key::kDelaySize, r.delay_size_ns)
      .field(vocab::key::kInserted, r.inserted_ns)
      .field(vocab::key::kStart, r.start_ns);
  if (r.owed_ns != 0) {
    block->field(vocab::key::kOwed, r.owed_ns);
  }
  if (r.run_id != 0) {
    block->field(vocab::key::kRun, r.run_id);  // which `coz run` wrote it, for its own summary
  }
  if (r.amplified) {
    block->field(vocab::key::kArrivalSpeedup, r.amplify.arrival_speedup_ns)
        .field(vocab::key::kLoadTarget, r.amplify.load, 2)
        .field(vocab::key::kArrivalSpeedupTotal, r.arrival_speedup_total_ns);
    if (r.has_load) {
      block->field(vocab::key::kLoad, r.load, 3);
    }
  }
  for (const PointResult& p : r.points) {
    if (p.kind == PointResult::Kind::kLatency) {
      block->begin(vocab::kLatencyPoint)
          .field(vocab::key::kName, p.name)
          .field(vocab::key::kArrivals, p.arrivals)
          .field(vocab::key::kDepartures, p.departures)
          .field(vocab::key::kDifference, p.in_flight)
          .field(vocab::key::kInFlightNs, p.in_flight_ns);
    } else if (p.kind == PointResult::Kind::kThroughput) {
      block->begin(vocab::kThroughputPoint)
          .field(vocab::key::kName, p.name)
          .field(vocab::key::kDelta, p.delta);
    }
    if (p.has_arrivals) {
      block->begin(vocab::kArrivalPoint)
          .field(vocab::key::kName, p.name)
          .field(vocab::key::kArrivals, p.arrival_count);
    }
  }
}

}  // namespace coz
