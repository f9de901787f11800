// The runtime across a process tree (see runtime.h and shared_run.h): the lines each process
// resolves for the run, fork()'s handlers, which start the runtime again in a forked child as a
// follower of the run, and a follower's watch on the root.
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "base/own_fds.h"
#include "base/platform.h"
#include "hooks/hook_state.h"
#include "hooks/quiet_hooks.h"
#include "runtime/runtime.h"

namespace coz {

namespace {
Runtime* g_forking = nullptr;  // the runtime whose locks before_fork() holds
}  // namespace

void Runtime::before_fork() {
  Runtime* rt = active();
  if (rt && rt->owns_this_process() && rt->config_.follow_children && rt->run_.shared) {
    rt->lines_.before_fork();
    rt->points_.before_fork();
    g_forking = rt;
  }
}

void Runtime::after_fork_in_parent() {
  hooks_api::starting_process();
  if (Runtime* rt = g_forking) {
    g_forking = nullptr;
    rt->points_.after_fork();
    rt->lines_.after_fork();
  }
}

void Runtime::after_fork_in_child() {
  // First the table of the profiler's descriptors (its own handler, registered after this one,
  // would run too late): the child's runtime registers new ones, and another thread of the
  // parent may have held the table's lock as it forked.
  own_fds::forget_all_in_child();
  // The parent's runtime is not this process's: its threads, samplers and rings stayed behind
  // (and the clock engine's timers: the forking thread's hooks must not call them off).
  if (ThreadState* t = t_thread_state) {
    t->forget_sampler();
  }
  active_.store(nullptr, std::memory_order_release);
  quiet_hooks::g_experiment.store(nullptr, std::memory_order_release);
  wait_timing::set_mode(0);
  Runtime* parent = g_forking;
  g_forking = nullptr;
  if (parent) {
    parent->points_.after_fork();
    parent->lines_.after_fork();
    parent->follow_into_child();
  }
}

void Runtime::follow_into_child() {
  hooks_api::InsideRuntime inside;
  uint64_t began = platform::monotonic_ns();
  LocalDelays inherited;
  if (ThreadState* t = t_thread_state) {
    inherited = t->delays;
  }
  t_thread_state = nullptr;
  life_.forget_calling_thread();  // its exit must not detach the parent's state
  lines_.clear_counts();          // the child counts its own samples
  points_.forget_published();     // and publishes its own arrivals
  JoinedRun run = run_;
  run.role = RunRole::kForkFollower;
  run.run->processes.fetch_add(1, std::memory_order_relaxed);
  // Never freed, as the first runtime: the child's threads may sample until it exits.
  auto* child = new Runtime(config_, points_, std::move(run), this, began);
  child->life_.reuse_key(life_);           // one key per image, however many generations fork
  child->config_.output = writer_.path();  // absolute: the program may have changed directory
  child->start(&inherited);
}

bool Runtime::resolve_lines_of_run(SamplerKind sampler, RunnerSettings* runner,
                                   std::string* error) {
  SharedRun& run = *run_.run;
  // Only a run whose memory its children share can find lines in other processes.
  bool elsewhere_ok = run_.shared && config_.follow_children;
  no_lines_ = lines_.no_lines_reason();
  if (!no_lines_.empty() && root() && !elsewhere_ok) {
    *error = no_lines_;
    return false;
  }
  if (no_lines_.empty()) {
    run.with_lines.fetch_add(1, std::memory_order_relaxed);
  } else if (root()) {
    reporter_.say(no_lines_ +
                      "; this process coordinates the run, whose lines come from the "
                      "programs it starts",
                  false);
  }  // a child without lines of its own is still sampled and slowed: its time is the run's
  uint32_t found = 0;
  if (!config_.fixed_line.empty()) {
    bool elsewhere = false;
    SourceLine* line = CommandLinePoints::resolve_line(lines_.table(), config_.fixed_line,
                                                       "--fixed-line", error, &elsewhere);
    if (line) {
      found |= CommandLinePoints::kFixedLineBit;
      if (root()) {
        runner->fixed_line = line;
      } else {
        experiment_.fixed.put(*line);  // for a root that does not have it
      }
    } else if (root()) {
      if (!elsewhere_ok || !elsewhere) {  // a line of this program's own files, or ambiguous
        return false;
      }
      runner->fixed_elsewhere = true;
    }
  }
  // Counted in the run's shared counters, so every process that has a point's line adds to it.
  points_.attach_shared(&run.points);
  if (!config_.breakpoint_progress.empty() && sampler != SamplerKind::kPerf) {
    if (root()) {
      *error =
          "--progress counts with hardware breakpoints, which need perf_event (refused here); "
          "use --sampled-progress FILE:LINE instead";
      return false;
    }
  } else if (!command_line_points_.resolve(config_, lines_.table(), lines_.map(), points_,
                                           !root()        ? CommandLinePoints::Missing::kSkip
                                           : elsewhere_ok ? CommandLinePoints::Missing::kElsewhere
                                                          : CommandLinePoints::Missing::kError,
                                           &found, error)) {
    return false;
  }
  run.resolved.fetch_or(found, std::memory_order_relaxed);
  error->clear();
  return true;
}

void Runtime::say_what_no_process_had() {
  SharedRun& run = *run_.run;
  if (!no_lines_.empty() && run.with_lines.load(std::memory_order_relaxed) == 0) {
    reporter_.say("error: no process of the run had lines to profile: " + no_lines_, true);
    return;  // nothing below could have been found either
  }
  uint32_t resolved = run.resolved.load(std::memory_order_relaxed);
  auto missing = [&](const std::string& option, const std::string& spec) {
    reporter_.say("warning: " + option + " " + spec +
                      " was found in no process of the run; pick a line that the compiler "
                      "emitted code for",
                  true);
  };
  if (!config_.fixed_line.empty() && !(resolved & CommandLinePoints::kFixedLineBit)) {
    missing("--fixed-line", config_.fixed_line);
  }
  for (size_t i = 0; i < config_.breakpoint_progress.size(); i++) {
    if (!(resolved & CommandLinePoints::breakpoint_bit(i))) {
      missing("--progress", config_.breakpoint_progress[i]);
    }
  }
  for (size_t i = 0; i < config_.sampled_progress.size(); i++) {
    if (!(resolved & CommandLinePoints::sampled_bit(i))) {
      missing("--sampled-progress", config_.sampled_progress[i]);
    }
  }
}

void Runtime::watch_root() {
  if (root_gone_) {
    return;
  }
  // A live root answers a signal; seen from another PID namespace (where its pid names another
  // process or none), it keeps its heartbeat fresh instead: one silent for 5 s is gone (a root
  // reading a large library's debug information can be silent for a second or two).
  if (!run_.other_pid_namespace) {
    if (kill(run_.root_pid, 0) == 0 || errno != ESRCH) {
      return;
    }
  } else {
    uint64_t beat = run_.run->root_alive_ns.load(std::memory_order_relaxed);
    if (beat == 0 || platform::monotonic_ns() < beat + 5000000000ull) {
      return;
    }
  }
  root_gone_ = true;
  experiment_.selected.store(0, std::memory_order_release);
  experiment_.ledger.end();
  reporter_.say("the run's root process " + std::to_string(run_.root_pid) +
                    " has gone: its experiment is over",
                false);
}

void Runtime::before_exec() {
  // A sample signal set on the clock engine's timer must not fire into the new image, whose
  // default action for it ends the process.
  if (ThreadState* t = t_thread_state) {
    t->before_stopping(false);
  }
  // The new image starts a run of its own (its memory is not this one's): the children this
  // process leaves behind must not go on paying an experiment nobody will end.
  if (root() && owns_this_process()) {
    experiment_.selected.store(0, std::memory_order_release);
    experiment_.ledger.end();
  }
}

}  // namespace coz
