// Experiments: start, end, record (see experiment_runner.h).
#include "runtime/experiment_runner.h"

#include <chrono>

#include "platform.h"

namespace coz {

ExperimentRunner::ExperimentRunner(RunnerSettings settings, ExperimentState& state,
                                   ProgressPoints& points, ProfileWriter& writer, uint64_t seed)
    : settings_(settings),
      state_(state),
      points_(points),
      writer_(writer),
      scheduler_(settings.scheduler),
      random_(seed) {}

uint64_t ExperimentRunner::now_ns() const {
  return settings_.clock ? settings_.clock() : platform::monotonic_ns();
}

bool ExperimentRunner::wait(uint64_t ns) {
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait_for(lock, std::chrono::nanoseconds(ns), [this] { return stop_; });
  return stop_;
}

void ExperimentRunner::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
}

SourceLine* ExperimentRunner::wait_for_line() {
  SourceLine* line = state_.offered.exchange(nullptr, std::memory_order_acq_rel);
  state_.want_line.store(line == nullptr, std::memory_order_release);
  return line;
}

std::vector<ExperimentRunner::PointSnapshot> ExperimentRunner::snapshot() const {
  if (before_snapshot_) {
    before_snapshot_();
  }
  std::vector<PointSnapshot> out;
  points_.for_each([&out](const ProgressPoint& p) {
    out.push_back({&p,
                   p.read(p.throughput),
                   p.read(p.begin),
                   p.read(p.end),
                   0,
                   {},
                   p.delay_in_flight_ns.load(std::memory_order_relaxed)});
  });
  points_.for_each_arrival([&out](const ArrivalCounter& a) {
    for (PointSnapshot& p : out) {
      if (p.point == a.point) {
        p.arrivals += __atomic_load_n(&a.counter.count, __ATOMIC_RELAXED);
      }
    }
  });
  return out;
}

void ExperimentRunner::tick() {
  if (!is_open_ || !points_.any_latency()) {
    return;
  }
  uint64_t now = now_ns();
  double real = static_cast<double>(now - open_.tick_ns);
  open_.tick_ns = now;
  points_.for_each([&](const ProgressPoint& p) {
    if (!p.is_latency) {
      return;
    }
    uint64_t begun = p.read(p.begin), ended = p.read(p.end);
    for (PointSnapshot& s : open_.points) {
      if (s.point == &p) {
        s.in_flight.add(begun, ended, real);
        return;
      }
    }
    PointSnapshot fresh{&p, 0, 0, 0, 0, {}, 0};  // a point first seen during the experiment
    fresh.in_flight.add(begun, ended, real);
    open_.points.push_back(fresh);
  });
}

void ExperimentRunner::begin_end_to_end_early() {
  if (settings_.end_to_end && (settings_.fixed_line || load_alone())) {
    begin(settings_.fixed_line);
  }
}

void ExperimentRunner::begin(SourceLine* line) {
  state_.want_line.store(false, std::memory_order_release);
  state_.offered.store(nullptr, std::memory_order_release);  // an offer racing the store above
  open_ = Open();
  open_.line = line;
  open_.speedup = scheduler_.draw_speedup(random_);
  open_.delay_ns = settings_.sampling_period_ns * static_cast<uint64_t>(open_.speedup) / 100;
  open_.points = snapshot();
  state_.selected_samples.store(0, std::memory_order_relaxed);
  state_.reset_arrivals();
  state_.ledger.begin(open_.delay_ns);
  state_.selected.store(line, std::memory_order_release);
  open_.start_ns = now_ns();
  open_.tick_ns = open_.start_ns;
  is_open_ = true;
}

uint64_t ExperimentRunner::end() {
  tick();
  uint64_t end_ns = now_ns();
  state_.selected.store(nullptr, std::memory_order_release);
  uint64_t inserted = state_.ledger.global_ns();
  state_.ledger.end();
  is_open_ = false;
  experiments_++;

  uint64_t elapsed = end_ns - open_.start_ns;
  uint64_t effective = elapsed > inserted ? elapsed - inserted : 0;
  std::vector<PointSnapshot> now = snapshot();
  auto before_of = [this](const PointSnapshot& p) {
    for (const PointSnapshot& b : open_.points) {
      if (b.point == p.point) {
        return b;  // tick() integrated requests in flight into this snapshot
      }
    }
    return PointSnapshot{p.point, 0, 0, 0, 0, {}, 0};
  };

  RecordBuilder block;
  block.begin(vocab::kExperiment)
      .field(vocab::key::kSelected, open_.line ? open_.line->name() : std::string(kNoLine))
      .field(vocab::key::kSpeedup, open_.speedup / 100.0, 2)
      .field(vocab::key::kDuration, effective)
      .field(vocab::key::kSelectedSamples, state_.selected_samples.load(std::memory_order_relaxed))
      .field(vocab::key::kElapsed, elapsed)
      // Coz's fields: delays of delay-size each (with amplification, the total over delay-size).
      .field(vocab::key::kDelays, open_.delay_ns ? inserted / open_.delay_ns : 0)
      .field(vocab::key::kDelaySize, open_.delay_ns)
      .field(vocab::key::kInserted, inserted);
  if (settings_.run_id != 0) {
    block.field(vocab::key::kRun,
                settings_.run_id);  // which `coz run` wrote it, for its own summary
  }
  if (settings_.amplify.requested()) {
    // The amplification in force, and the load it achieved: the effective arrival rate over the
    // arrival threads' own rate before amplification.
    uint64_t arrivals = 0;
    for (const PointSnapshot& p : now) {
      arrivals += p.arrivals - before_of(p).arrivals;
    }
    block.field(vocab::key::kArrivalSpeedup, settings_.amplify.arrival_speedup_ns)
        .field(vocab::key::kLoadTarget, settings_.amplify.load, 2)
        .field(vocab::key::kArrivalSpeedupTotal,
               state_.arrival_speedup_ns.load(std::memory_order_relaxed));
    // Each arrival thread's own rate is 1 / its period; with k threads the base rate is k over
    // the mean period of their arrivals.
    uint64_t with_period = state_.arrivals_with_period.load(std::memory_order_relaxed);
    uint64_t threads = state_.arrival_threads.load(std::memory_order_relaxed);
    if (with_period > 0 && threads > 0 && effective > 0 && arrivals > 0) {
      double mean_period =
          static_cast<double>(state_.arrival_period_sum_ns.load(std::memory_order_relaxed)) /
          static_cast<double>(with_period);
      double rate = static_cast<double>(arrivals) / static_cast<double>(effective);  // per ns
      block.field(vocab::key::kLoad, rate * mean_period / static_cast<double>(threads), 3);
    }
  }

  uint64_t visits = 0;
  for (const PointSnapshot& p : now) {
    PointSnapshot before = before_of(p);
    if (p.point->is_latency) {
      uint64_t begun = p.begin - before.begin, departures = p.end - before.end;
      before.in_flight.remove(static_cast<double>(p.delay_in_flight - before.delay_in_flight));
      visits += begun + departures;
      block.begin(vocab::kLatencyPoint)
          .field(vocab::key::kName, p.point->name)
          .field(vocab::key::kArrivals, begun)
          .field(vocab::key::kDepartures, departures)
          .field(vocab::key::kDifference, InFlight::count(p.begin, p.end))
          .field(vocab::key::kInFlightNs, before.in_flight.integral_ns());
    } else if (p.throughput != 0 || !p.point->has_arrivals) {
      uint64_t delta = p.throughput - before.throughput;
      visits += delta;
      block.begin(vocab::kThroughputPoint)
          .field(vocab::key::kName, p.point->name)
          .field(vocab::key::kDelta, delta);
    }
    if (p.point->has_arrivals) {
      block.begin(vocab::kArrivalPoint)
          .field(vocab::key::kName, p.point->name)
          .field(vocab::key::kArrivals, p.arrivals - before.arrivals);
    }
  }
  std::string why;
  bool ok = writer_.write_block(block, 1, &why);
  if (on_write_) {
    on_write_(ok, why);
  }
  return visits;
}

void ExperimentRunner::finish() {
  if (is_open_ && settings_.end_to_end) {
    end();
  }
  state_.want_line.store(false, std::memory_order_release);
}

}  // namespace coz
