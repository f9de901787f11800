// The profiler thread's work: back-to-back experiments (sections 5.1.2-5.1.5, 5.2.2), or one
// end-to-end experiment over the whole run. Each finished experiment is written to the profile
// at once, as one block, so a run cut short keeps every completed experiment.
//
// Threading: run() is the profiler thread's body; stop() and finish() are called by the thread
// that shuts the runtime down, after which run() returns; finish() writes an end-to-end
// experiment that was still open.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "config/run_config.h"
#include "experiment/arrival_pacer.h"
#include "experiment/experiment_cycle.h"
#include "experiment/experiment_result.h"
#include "experiment/experiment_state.h"
#include "experiment/in_flight.h"
#include "experiment/scheduler.h"
#include "line/line_table.h"
#include "points/progress_points.h"
#include "record/profile_writer.h"

namespace coz {

namespace remote {
class Link;
}

struct RunnerSettings {
  SchedulerSettings scheduler;
  bool end_to_end = false;
  const SourceLine* fixed_line = nullptr;
  // --fixed-line names a line this process does not have: the runner takes it from the process
  // of the run that does (ExperimentState::fixed) and begins once one has.
  bool fixed_elsewhere = false;
  // In a followed process (not the run's root): no experiments, only the idle calls until stop()
  // (the root's runner runs the experiments every process of the run takes part in).
  bool follower = false;
  uint64_t sampling_period_ns = kDefaultSamplingPeriodNs;
  AmplifySettings amplify;  // load amplification in force in every experiment
  uint64_t run_id = 0;      // written on each experiment (`run`) when set
  // The clock experiments are timed by (monotonic nanoseconds), which also moves the experiment
  // cycle in run(): an injected clock must advance; null: the real monotonic clock. Tests inject
  // their own.
  uint64_t (*clock)() = nullptr;
};

// The runner's settings from the run's config, for the run's root or a follower: pure. The line
// (fixed_line, fixed_elsewhere) is the caller's to resolve; clock and run_id as config says.
RunnerSettings runner_settings(const RunConfig& config, bool root);

class ExperimentRunner {
 public:
  ExperimentRunner(RunnerSettings settings, ExperimentState& state, ProgressPoints& points,
                   ProfileWriter& writer, uint64_t seed);

  // Runs experiments until stop(). `idle` is called every 10 ms or more often (to map new
  // libraries).
  // An end-to-end experiment whose line is known before any sample (--fixed-line, or load
  // amplification alone) begins here, before the program runs, so it sees all of the program's
  // progress however late the profiler thread starts. Call once, before run().
  void begin_end_to_end_early();
  template <typename Idle>
  void run(Idle&& idle);
  void stop();
  // As stop(), from a signal handler (async-signal-safe): seen within one wait slice (10 ms).
  void stop_async() { async_stop_.store(true, std::memory_order_release); }
  // Ends and writes the open end-to-end experiment, if any. Call after run() has returned.
  void finish();
  // Brings counters the program does not increment itself (breakpoints) up to date.
  void set_before_snapshot(std::function<void()> refresh) { before_snapshot_ = std::move(refresh); }
  // The threads that make progress (threads/progress_threads.h): `began` is called as each
  // experiment begins (after the ledger's new epoch), `ending` as it ends (before the ledger
  // ends it) for each thread's visits and the delays it took. Unset: every visit is timed by the
  // global delay total.
  void set_progress_threads(std::function<void()> began,
                            std::function<std::vector<ProgressThread>()> ending) {
    progress_began_ = std::move(began);
    progress_ending_ = std::move(ending);
  }
  // Told of every experiment block written (`ok`) or not (`why`), to report failures at once.
  void set_on_write(std::function<void(bool ok, const std::string& why)> on_write) {
    on_write_ = std::move(on_write);
  }

  uint64_t experiments() const { return experiments_; }

  // A member of a run across programs (profiler/coordinated_experiments.cpp): the coordinator
  // behind `link` chooses the lines and times the experiments; this runner begins and ends them
  // when told, relays its delay total, and writes each experiment locally (the link forwards the
  // profile). `key_of` names a line by the key this process's samples carry; `on_lost` is told once
  // when the coordinator is gone (the open experiment ends there, unwritten, and none follow). Call
  // before run().
  void follow_coordinator(remote::Link* link,
                          std::function<uint64_t(const std::string& line)> key_of,
                          std::function<void(const std::string& why)> on_lost) {
    link_ = link;
    key_of_ = std::move(key_of);
    on_lost_ = std::move(on_lost);
  }

 private:
  struct PointSnapshot {
    const ProgressPoint* point;
    PointCounts counts;
    InFlight in_flight;  // requests in flight over real time (latency points, from tick())
  };
  // The line an experiment speeds up, named as every process of the run names it.
  struct Choice {
    uint64_t key = 0;  // SourceLine::key, 0 for none
    std::string name;  // file:line
  };
  struct Open {
    Choice line;
    int speedup = 0;
    uint64_t delay_ns = 0;
    uint64_t start_ns = 0;
    std::vector<PointSnapshot> points;
    uint64_t tick_ns = 0;  // the last in-flight tick
  };
  // Adds requests in flight since the last tick to each latency point's integral over real
  // time (Little's law needs their time average, not a snapshot at the end; the delays inserted
  // meanwhile are taken off in end()).
  void tick();

  // Load amplification alone (one 0% experiment over the whole run, no line given) speeds no
  // line up: it starts with the program and is recorded under no line, so it joins no line's
  // baseline (its window differs from theirs) and only counts for the load's throughput.
  bool load_alone() const {
    return settings_.end_to_end && settings_.scheduler.fixed_speedup == 0 &&
           settings_.amplify.requested();
  }
  uint64_t now_ns() const;
  Choice fixed_choice() {
    if (const SourceLine* l = settings_.fixed_line) {
      return Choice{l->key, l->name()};
    }
    if (settings_.fixed_elsewhere && fixed_found_.key == 0) {
      state_.fixed.take(&fixed_found_.key, &fixed_found_.name);
    }
    return fixed_found_;
  }
  // Waits up to `ns` for stop(); returns true if stopped.
  bool wait(uint64_t ns);
  // The line a sample offered, if any (key 0 if none); asks for one when none is there.
  Choice wait_for_line();
  void begin(const Choice& line, int speedup = -1);  // -1: the scheduler draws it
  // Cuts the open experiment short, unwritten (exit, a lost coordinator).
  void cut();
  // The member's loop (see follow_coordinator), until stop().
  void follow(const std::function<void()>& idle);
  // Ends the open experiment and writes it; returns the progress visits it saw.
  struct Visits {
    uint64_t total;
    uint64_t fewest;  // ExperimentResult::fewest_visits
  };
  Visits end();
  std::vector<PointSnapshot> snapshot() const;

  RunnerSettings settings_;
  ExperimentState& state_;
  ProgressPoints& points_;
  ProfileWriter& writer_;
  std::function<void(bool, const std::string&)> on_write_;
  ExperimentCycle cycle_;
  uint64_t created_ns_;  // the runner starts with the run: experiments' `start` counts from here
  Open open_;
  bool is_open_ = false;
  uint64_t experiments_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<bool> async_stop_{false};
  std::function<void()> before_snapshot_;
  std::function<void()> progress_began_;
  std::function<std::vector<ProgressThread>()> progress_ending_;
  Choice fixed_found_;  // fixed_elsewhere: the line once another process resolved it
  remote::Link* link_ = nullptr;
  uint64_t coordinated_ = 0;  // the coordinator's number for the open experiment
  bool whole_run_ = false;    // it is end to end: written as this member exits (finish)
  std::function<uint64_t(const std::string&)> key_of_;
  std::function<void(const std::string&)> on_lost_;
};

template <typename Idle>
void ExperimentRunner::run(Idle&& idle) {
  auto waiting = [&](uint64_t ns) {
    // Sleep in slices: every 10 ms, so new libraries are noticed while an experiment runs, and
    // every millisecond while latency points exist, to integrate requests in flight.
    for (uint64_t waited = 0; waited < ns;) {
      uint64_t slice = is_open_ && points_.any_latency() ? 1000000 : 10000000;
      uint64_t step = ns - waited < slice ? ns - waited : slice;
      if (wait(step) || async_stop_.load(std::memory_order_acquire)) {
        return true;
      }
      waited += step;
      tick();
      idle();
    }
    return false;
  };
  if (link_) {
    follow([&] { idle(); });
    return;
  }
  if (settings_.follower || (is_open_ && settings_.end_to_end)) {  // begun early
    while (!waiting(1000000000)) {
    }
    return;  // finish() writes it at exit
  }
  while (true) {
    uint64_t now = now_ns();
    switch (cycle_.phase(now)) {
      case ExperimentCycle::Phase::kChoosing: {
        // A line given (here or in another process of the run), none for load alone, or the
        // next one a sample offers.
        bool given = settings_.fixed_line || settings_.fixed_elsewhere || load_alone();
        Choice line = given ? fixed_choice() : wait_for_line();
        if (line.key == 0 && !load_alone()) {
          if (waiting(settings_.sampling_period_ns)) {
            return;
          }
          break;
        }
        begin(line);
        if (settings_.end_to_end) {
          while (!waiting(1000000000)) {
          }
          return;  // finish() writes it at exit
        }
        break;
      }
      case ExperimentCycle::Phase::kRunning:
      case ExperimentCycle::Phase::kCoolingOff:
        if (waiting(cycle_.left_ns(now))) {
          return;  // an experiment cut short by exit is not written
        }
        break;
      case ExperimentCycle::Phase::kEnding: {
        Visits visits = end();
        cycle_.end(now_ns(), visits.total, visits.fewest);
        break;
      }
    }
  }
}

}  // namespace coz
