// Experiments: start, end, record (see experiment_runner.h).
#include "profiler/experiment_runner.h"

#include <chrono>

#include "base/platform.h"
#include "delays/ledger_trace.h"
#include "record/experiment_record.h"
#include "remote/link.h"

namespace coz {

ExperimentRunner::ExperimentRunner(RunnerSettings settings, ExperimentState& state,
                                   ProgressPoints& points, ProfileWriter& writer, uint64_t seed)
    : settings_(settings),
      state_(state),
      points_(points),
      writer_(writer),
      cycle_(settings.scheduler, seed),
      created_ns_(now_ns()) {}

RunnerSettings runner_settings(const RunConfig& config, bool root) {
  RunnerSettings runner;
  runner.amplify.arrival_speedup_ns = config.arrival_speedup_ns;
  runner.amplify.load = config.load;
  runner.scheduler.zero_speedup_share = config.zero_speedup_share;
  runner.scheduler.fixed_speedup = config.fixed_speedup;
  runner.scheduler.speedup_step = config.speedup_step;
  runner.scheduler.initial_length_ns = config.experiment_length_ns;
  runner.scheduler.cooloff_ns = config.sampling_period_ns * kCooloffPeriods;
  runner.end_to_end = config.end_to_end;
  runner.follower = !root;
  runner.sampling_period_ns = config.sampling_period_ns;
  runner.run_id = config.run_id;
  return runner;
}

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

ExperimentRunner::Choice ExperimentRunner::wait_for_line() {
  Choice line;
  bool taken = state_.offered.take(&line.key, &line.name);
  state_.want_line.store(!taken, std::memory_order_release);
  return taken ? line : Choice{};
}

std::vector<ExperimentRunner::PointSnapshot> ExperimentRunner::snapshot() const {
  if (before_snapshot_) {
    before_snapshot_();
  }
  std::vector<PointSnapshot> out;
  points_.for_each([&out](const ProgressPoint& p) {
    PointCounts counts;
    counts.throughput = p.read(p.throughput());
    p.read_latency(&counts.begin, &counts.end);
    counts.delay_in_flight_ns = p.delay_in_flight_ns().load(std::memory_order_relaxed);
    out.push_back({&p, counts, {}});
  });
  points_.for_each_arrival([&out](const ArrivalCounter& a) {
    for (PointSnapshot& p : out) {
      if (p.point == a.point) {
        p.counts.arrivals += __atomic_load_n(&a.counter.count, __ATOMIC_RELAXED);
      }
    }
  });
  for (PointSnapshot& p : out) {  // and those of the run's other processes
    if (p.point->slot) {
      p.counts.arrivals += p.point->slot->arrivals_elsewhere.load(std::memory_order_relaxed);
    }
  }
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
    uint64_t begun = 0, ended = 0;
    p.read_latency(&begun, &ended);
    for (PointSnapshot& s : open_.points) {
      if (s.point == &p) {
        s.in_flight.add(begun, ended, real);
        return;
      }
    }
    PointSnapshot fresh{&p, {}, {}};  // a point first seen during the experiment
    fresh.in_flight.add(begun, ended, real);
    open_.points.push_back(fresh);
  });
}

void ExperimentRunner::begin_end_to_end_early() {
  // A member of a run across programs begins when the coordinator says (follow).
  if (!link_ && !settings_.follower && settings_.end_to_end &&
      (settings_.fixed_line || load_alone())) {
    begin(fixed_choice());
  }
}

void ExperimentRunner::begin(const Choice& line, int speedup) {
  state_.want_line.store(false, std::memory_order_release);
  state_.offered.clear();  // an offer racing the store above
  open_ = Open();
  open_.line = line;
  open_.speedup = cycle_.speedup(speedup);
  open_.delay_ns = settings_.sampling_period_ns * static_cast<uint64_t>(open_.speedup) / 100;
  open_.points = snapshot();
  state_.selected_samples.store(0, std::memory_order_relaxed);
  state_.reset_arrivals();
  state_.reset_raises();
  state_.started_ns.store(platform::monotonic_ns(), std::memory_order_relaxed);
  state_.sample_periods.store(1, std::memory_order_relaxed);  // until its first selected sample
  state_.period_ns.store(settings_.sampling_period_ns, std::memory_order_relaxed);
  state_.ledger.begin(open_.delay_ns);
  ledger_trace::note(nullptr, ledger_trace::Event::kBegin, open_.delay_ns, state_.ledger.epoch());
  if (progress_began_) {
    progress_began_();
  }
  state_.selected.store(line.key, std::memory_order_release);
  open_.start_ns = now_ns();
  open_.tick_ns = open_.start_ns;
  cycle_.begin(open_.start_ns, settings_.end_to_end);  // its length from here, set up
  is_open_ = true;
}

ExperimentRunner::Visits ExperimentRunner::end() {
  tick();
  uint64_t end_ns = now_ns();
  state_.selected.store(0, std::memory_order_release);
  uint64_t inserted = state_.ledger.global_ns();
  ExperimentInput in;
  if (progress_ending_) {
    in.progress_threads = progress_ending_();
  }
  ledger_trace::note(nullptr, ledger_trace::Event::kEnd, inserted, state_.ledger.epoch());
  state_.ledger.end();
  is_open_ = false;
  experiments_++;

  in.selected = open_.line.key != 0 ? open_.line.name : std::string(kNoLine);
  in.speedup = open_.speedup;
  in.delay_ns = open_.delay_ns;
  in.elapsed_ns = end_ns - open_.start_ns;
  in.start_ns = open_.start_ns - created_ns_;
  in.inserted_ns = inserted;
  in.selected_samples = state_.selected_samples.load(std::memory_order_relaxed);
  in.run_id = settings_.run_id;
  in.amplify = settings_.amplify;
  in.arrival_speedup_total_ns = state_.arrival_speedup_ns.load(std::memory_order_relaxed);
  in.arrival_period_sum_ns = state_.arrival_period_sum_ns.load(std::memory_order_relaxed);
  in.arrivals_with_period = state_.arrivals_with_period.load(std::memory_order_relaxed);
  in.arrival_threads = state_.arrival_threads.load(std::memory_order_relaxed);
  for (const PointSnapshot& now : snapshot()) {
    PointInput point{now.point->name, now.point->is_latency, now.point->has_arrivals, {}, {}, {}};
    point.after = now.counts;
    for (const PointSnapshot& before : open_.points) {
      if (before.point == now.point) {
        point.before = before.counts;
        point.in_flight = before.in_flight;  // tick() integrated requests in flight into it
      }
    }
    in.points.push_back(std::move(point));
  }
  ExperimentResult result = compute_experiment_result(in);
  RecordBuilder block;
  append_experiment(result, &block);
  std::string why;
  bool ok = writer_.write_block(block, 1, &why);
  if (on_write_) {
    on_write_(ok, why);
  }
  return {result.visits, result.fewest_visits};
}

void ExperimentRunner::finish() {
  if (settings_.follower) {
    return;  // the experiment is the root's
  }
  if (is_open_ && (settings_.end_to_end || whole_run_)) {
    end();
    if (link_ && whole_run_) {  // the coordinator's end-to-end experiment: its record goes now
      link_->forward_profile();
      link_->ended(coordinated_);
    }
  } else if (is_open_) {
    // Cut short by exit: not written, but over for the processes that outlive this one (a
    // daemon's children), which would otherwise go on paying its delays.
    cut();
  }
  state_.want_line.store(false, std::memory_order_release);
}

void ExperimentRunner::cut() {
  state_.selected.store(0, std::memory_order_release);
  state_.ledger.end();
  is_open_ = false;
}

}  // namespace coz
