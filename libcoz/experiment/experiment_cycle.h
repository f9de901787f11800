// One experiment after another (sections 5.1.2-5.2.2) as a pure state machine: choose a line,
// begin it at a drawn speedup, run it for the scheduler's length, end it (the caller collects its
// visits), cool off while samples still in flight land, choose again. A whole-run experiment (end
// to end) is never due. The caller passes the time; the profiler thread of a local run and the
// coordinator of a run across programs drive the same cycle (a member of such a run, and a
// followed process, run none of their own).
//
// Threading: one thread drives it (the profiler thread, or the coordinator's loop).
#pragma once

#include <cstdint>

#include "experiment/scheduler.h"

namespace coz {

class ExperimentCycle {
 public:
  enum class Phase {
    kChoosing,    // no experiment open: the caller looks for a line
    kRunning,     // one is open until its length has passed
    kEnding,      // its length has passed: the caller collects its visits and calls end()
    kCoolingOff,  // samples still in flight land before the next line is chosen
  };
  static constexpr uint64_t kNever = UINT64_MAX;

  ExperimentCycle(SchedulerSettings settings, uint64_t seed)
      : scheduler_(settings), random_(seed) {}

  // The phase at `now`: running turns to ending once its length has passed, cooling off to
  // choosing once the cool-off has.
  Phase phase(uint64_t now);
  // The phase as last moved, without looking at the time: for a caller between two steps (a
  // message while the experiment's end is still to be sent).
  Phase current() const { return phase_; }
  // The next experiment's speedup in percent: `given`, or drawn by the scheduler when -1.
  int speedup(int given = -1) { return given >= 0 ? given : scheduler_.draw_speedup(random_); }
  // The experiment begins at `now` (a line was found while choosing, or told by a coordinator),
  // once it is set up: its length counts from here.
  void begin(uint64_t now, bool whole_run);
  // The open experiment has ended with `visits` progress visits, `fewest` at its least visited
  // point (Scheduler::finished): the next one's length adapts, and the cool-off begins at `now`.
  void end(uint64_t now, uint64_t visits, uint64_t fewest);
  // The open experiment ends at once (a whole run asked for while one ran): ending is due now.
  void end_now() { until_ns_ = 0; }
  // The open experiment is dropped unmeasured (exit, a lost coordinator): back to choosing.
  void cut() { phase_ = Phase::kChoosing; }
  // Nanoseconds from `now` until the phase changes by itself: 0 when due, kNever when only the
  // caller moves it (choosing, ending, a whole run).
  uint64_t left_ns(uint64_t now) const;

  uint64_t experiments() const { return experiments_; }
  const Scheduler& scheduler() const { return scheduler_; }

 private:
  Scheduler scheduler_;
  Random random_;
  Phase phase_ = Phase::kChoosing;
  uint64_t until_ns_ = 0;  // the running experiment's end, or the cool-off's
  uint64_t experiments_ = 0;
};

}  // namespace coz
