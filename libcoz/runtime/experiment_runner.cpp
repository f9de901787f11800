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
  std::vector<PointSnapshot> out;
  points_.for_each([&out](const ProgressPoint& p) {
    out.push_back({&p, p.read(p.throughput), p.read(p.begin), p.read(p.end)});
  });
  return out;
}

void ExperimentRunner::begin(SourceLine* line) {
  state_.want_line.store(false, std::memory_order_release);
  open_ = Open();
  open_.line = line;
  open_.speedup = scheduler_.draw_speedup(random_);
  open_.delay_ns = settings_.sampling_period_ns * static_cast<uint64_t>(open_.speedup) / 100;
  open_.points = snapshot();
  state_.selected_samples.store(0, std::memory_order_relaxed);
  state_.ledger.begin(open_.delay_ns);
  state_.selected.store(line, std::memory_order_release);
  open_.start_ns = platform::monotonic_ns();
  is_open_ = true;
}

uint64_t ExperimentRunner::end() {
  uint64_t end_ns = platform::monotonic_ns();
  state_.selected.store(nullptr, std::memory_order_release);
  uint64_t delays = state_.ledger.global_count();
  state_.ledger.end();
  is_open_ = false;
  experiments_++;

  uint64_t elapsed = end_ns - open_.start_ns;
  uint64_t inserted = delays * open_.delay_ns;
  uint64_t effective = elapsed > inserted ? elapsed - inserted : 0;
  RecordBuilder block;
  block.begin("experiment")
      .field("selected", open_.line->name())
      .field("speedup", open_.speedup / 100.0, 2)
      .field("duration", effective)
      .field("selected-samples", state_.selected_samples.load(std::memory_order_relaxed))
      .field("elapsed", elapsed)
      .field("delays", delays)
      .field("delay-size", open_.delay_ns);

  uint64_t visits = 0;
  std::vector<PointSnapshot> now = snapshot();
  for (const PointSnapshot& p : now) {
    PointSnapshot before{p.point, 0, 0, 0};
    for (const PointSnapshot& b : open_.points) {
      if (b.point == p.point) {
        before = b;
      }
    }
    if (p.point->is_latency) {
      uint64_t arrivals = p.begin - before.begin, departures = p.end - before.end;
      visits += arrivals + departures;
      block.begin("latency-point")
          .field("name", p.point->name)
          .field("arrivals", arrivals)
          .field("departures", departures)
          .field("difference", p.begin > p.end ? p.begin - p.end : uint64_t{0});
    } else {
      uint64_t delta = p.throughput - before.throughput;
      visits += delta;
      block.begin("throughput-point").field("name", p.point->name).field("delta", delta);
    }
  }
  writer_.write_block(block);
  return visits;
}

void ExperimentRunner::finish() {
  if (is_open_ && settings_.end_to_end) {
    end();
  }
  state_.want_line.store(false, std::memory_order_release);
}

}  // namespace coz
