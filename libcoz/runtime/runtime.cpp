// The runtime owner object (see runtime.h): the profiler thread's loop, a sample signal's
// handling in the thread it interrupted, and shut-down. Start-up is runtime_start.cpp's.
#include "runtime/runtime.h"

#include <signal.h>

#include <new>

#include "base/own_fds.h"
#include "base/platform.h"
#include "base/real_functions.h"
#include "delays/ledger_trace.h"
#include "hooks/hook_state.h"
#include "hooks/quiet_hooks.h"
#include "runtime/run_summary.h"
#include "sample/sampler_choice.h"
#include "signals/process_signals.h"
#include "signals/sample_signal.h"

namespace coz {

std::atomic<Runtime*> Runtime::active_{nullptr};

namespace {

// A table of zeros for the runtime, which cannot run without it (as std::make_unique, which
// would throw).
template <typename T>
ZeroedPtr<T> zeroed_or_die() {
  ZeroedPtr<T> table = make_zeroed<T>();
  if (!table) {
    throw std::bad_alloc();
  }
  return table;
}

}  // namespace

Runtime::Runtime(RunConfig config, ProgressPoints& points, JoinedRun run, Runtime* parent,
                 uint64_t began_ns)
    : config_(with_root(std::move(config), run)),
      own_lines_(parent ? nullptr : std::make_unique<ProgramLines>(config_, reporter_)),
      lines_(parent ? parent->lines_ : *own_lines_),
      points_(points),
      run_(std::move(run)),
      own_handoffs_(parent ? nullptr : zeroed_or_die<HandoffTable>()),
      handoffs_(parent ? parent->handoffs_ : *own_handoffs_),
      own_fd_keys_(parent ? nullptr : zeroed_or_die<FdKeys>()),
      fd_keys_(parent ? parent->fd_keys_ : *own_fd_keys_),
      began_ns_(began_ns),
      parent_(parent) {}

void* Runtime::profiler_main(void* arg) {
  auto* self = static_cast<Runtime*>(arg);
  hooks_api::mark_profiler_thread();  // its locks, waits and joins are the runtime's own
  uint64_t ready_ns = platform::monotonic_ns();
  self->reporter_.say("profiler ready " + Reporter::ms(ready_ns - self->config_.exec_ns) +
                          " after exec (" + Reporter::ms(ready_ns - self->start_ns_) +
                          " in the runtime); " + std::to_string(self->lines_.table().size()) +
                          " lines in scope",
                      false);
  // dlopen is not interposed (glibc resolves $ORIGIN and RUNPATH relative to dlopen's caller,
  // which must stay the program): the runner polls for new libraries between experiments.
  // It also takes the sampling signal back if the program replaced its handler without the hooks.
  self->runner_->run([self] {
    if (self->root()) {  // first: reading a new library's lines may take a while
      self->run_.run->root_alive_ns.store(platform::monotonic_ns(), std::memory_order_relaxed);
    }
    self->lines_.map_new_objects();
    sample_signal::reclaim(process_signals::on_sample_signal);
    if (!self->root()) {
      self->watch_root();
      self->points_.publish_arrivals();
      self->command_line_points_.refresh();  // its --progress executions, added to the run's
    } else {
      self->points_.adopt_shared();  // a latency point a child begins mid-experiment is ticked
      if (self->run_.run->processes.load(std::memory_order_relaxed) > 1) {
        hooks_api::starting_process();  // children made without a hook (vfork, then exec)
      }
    }
  });
  if (self->signal_shutdown_.load(std::memory_order_acquire)) {
    self->finish_shutdown();  // for a thread in a SIGINT/SIGTERM handler (shutdown_from_signal)
  }
  return nullptr;
}

void Runtime::handle_signal(const siginfo_t& info, const void* context) {
  SignalSample signal;
  if (!backend_ || !backend_->reads_signal(info, &signal)) {
    return;  // the other engine's form: a signal queued by a sampler this process no longer runs
  }
  pid_t tid = platform::current_tid();
  ThreadState* state = threads_.by_fd(signal.token);
  if (!state || state->tid.load(std::memory_order_acquire) != tid) {
    // The number the signal names may since have been reused (its descriptor moved when the
    // program dup2()ed onto it): the thread's own state will do.
    state = t_thread_state;
    if (!state || state->tid.load(std::memory_order_acquire) != tid) {
      return;
    }
  }
  state->sampler->take(context, signal.overrun, state->stack_lo, state->stack_hi);
  delays_.on_signal(*state);
}

Counter* Runtime::new_arrival_counter(const char* name) {
  ThreadState* state = t_thread_state;
  if (!name) {
    return nullptr;
  }
  if (state) {  // a counter of the same name left by the state's previous thread, or this one
    for (ArrivalCounter* a = state->arrivals; a; a = a->next_in_thread) {
      if (a->point->name == name) {
        return &a->counter;
      }
    }
  }
  ArrivalCounter* counter = points_.new_arrival(name);
  if (counter && state) {
    delays_.add_arrival_counter(*state, counter);
  }
  return counter ? &counter->counter : nullptr;
}

void Runtime::note_write(bool ok, const std::string& why) {
  if (!ok && !write_failing_) {
    reporter_.say("error: could not append an experiment to " + config_.output + " (" + why +
                      "); it is kept and tried again with the next one",
                  true);
  } else if (ok && write_failing_) {
    reporter_.say(
        "the profile is written again: the experiments that waited are now in " + config_.output,
        true);
  }
  write_failing_ = !ok;
}

// Shut-down has three ways in (the library destructor, _exit, a fatal signal); the first finishes
// the work and later callers wait for it.
void Runtime::shutdown() {
  static thread_local bool in_shutdown = false;
  if (shut_down_.exchange(true)) {
    // Another exit path got here first: let it finish writing (unless that is this thread).
    if (!in_shutdown) {
      wait_for_shutdown(2000);
    }
    return;
  }
  in_shutdown = true;
  shutdown_began_ns_ = platform::monotonic_ns();
  sample_signal::Block block;
  if (profiler_running_) {
    runner_->stop();
    real().pthread_join(profiler_thread_, nullptr);
  }
  finish_shutdown();
}

void Runtime::shutdown_from_signal() {
  if (!profiler_running_ || shut_down_.exchange(true)) {
    // No profiler thread to write for us, or another exit path is writing: wait for it briefly.
    if (profiler_running_) {
      wait_for_shutdown(2000);
    }
    return;
  }
  shutdown_began_ns_ = platform::monotonic_ns();
  // Only async-signal-safe steps here: an atomic flag the profiler thread checks at least every
  // 10 ms, and sleeps. If the profiler thread cannot finish (it needs a lock this thread holds),
  // the program dies of its signal after 3 s with the experiments already written.
  signal_shutdown_.store(true, std::memory_order_release);
  runner_->stop_async();
  wait_for_shutdown(3000);
}

void Runtime::wait_for_shutdown(int ms) const {
  for (int i = 0; i < ms && !shutdown_done_.load(); i++) {
    timespec one = {0, 1000000};
    real().nanosleep(&one, nullptr);
  }
}

void Runtime::absorb_own_time(uint64_t since_ns) {
  uint64_t now = platform::monotonic_ns();
  if (ThreadState* t = t_thread_state; t && since_ns != 0 && now > since_ns) {
    delays_.absorb_own(*t, now - since_ns, false);
  }
}

void Runtime::drain_all_threads() {
  threads_.for_each_live([this](ThreadState& s) {
    s.sampler->disable();
    if (s.try_begin_drain()) {
      uint64_t selected = attribution_.drain(s);
      if (experiment_.ledger.active()) {
        s.pending_selected += selected;
        environment_.inserted(experiment_.ledger.absorb(
            s.delays, s.pending_selected * experiment_.ledger.delay_ns()));
        s.pending_selected = 0;
      }
      s.end_drain();
    }
  });
}

void Runtime::finish_shutdown() {
  active_.store(nullptr, std::memory_order_release);
  quiet_hooks::g_experiment.store(nullptr, std::memory_order_release);
  wait_timing::set_mode(0);
  drain_all_threads();  // so an end-to-end experiment counts every selected-line sample
  if (!root()) {
    points_.publish_arrivals();
    command_line_points_.refresh();
    absorb_own_time(shutdown_began_ns_);
    if (ThreadState* t = t_thread_state) {  // for the parent that waits for this process's exit
      delays_.before_wake(*t, FdKeys::of_process(getpid()), run_.run->handoffs);
    }
  }
  runner_->finish();
  bool no_arrivals = amplify_.requested() && !points_.any_arrivals();
  std::string why;
  if (!writer_.write_block(
          final_records(platform::monotonic_ns() - start_ns_, lines_.table(), no_arrivals, root(),
                        backend_->resolution_ns(), backend_->own_cpu_ns()),
          0, &why)) {
    reporter_.say(
        "error: could not append the final records to " + config_.output + " (" + why + ")", true);
  }
  writer_.close();
  membership_.finish();
  if (root()) {
    say_what_no_process_had();
    remove_run_file();
  }

  RunTotals run;
  run.run_ns = platform::monotonic_ns() - start_ns_;
  run.samples = attribution_.total_samples();
  run.in_scope = attribution_.in_scope_samples();
  run.lost = threads_.samples_lost();
  run.threads = threads_.total_attached();
  run.unsampled = life_.unsampled(&run.unsampled_reason);
  run.experiments = runner_->experiments();
  run.unwritten = writer_.unwritten_experiments();
  run.paused_ns = delays_.paused_ns();
  run.no_arrivals = no_arrivals;
  run.output = config_.output;
  run.coordinated = !config_.coordinator.empty();
  run.sampler = backend_->describe(config_.sampling_period_ns);
  report_run(reporter_, run, points_);
  shutdown_done_.store(true);
  ledger_trace::write_out();  // a debugging trace, after everything the profile needs
}

}  // namespace coz
