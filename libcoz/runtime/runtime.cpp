// The runtime owner object (see runtime.h): start-up, the profiler thread, the signal handlers
// that reach the runtime, and shut-down.
#include "runtime/runtime.h"

#include <signal.h>

#include "own_fds.h"
#include "platform.h"
#include "real_functions.h"
#include "runtime/hooks_api.h"
#include "runtime/quiet_hooks.h"
#include "runtime/run_summary.h"
#include "runtime/sampler_choice.h"
#include "sample_signal.h"

namespace coz {

std::atomic<Runtime*> Runtime::active_{nullptr};

namespace {

void exit_signal_handler(int sig);

// Samples go to the runtime; anything else on the signal is the program's own (it sent it).
void sample_signal_handler(int sig, siginfo_t* info, void* context) {
  int saved = errno;
  Runtime* rt = Runtime::active();
  int token = sample_signal::token(info);
  bool perf = info && info->si_code != SI_TIMER;
  if (sample_signal::is_sample(info, token >= 0 && ((perf && own_fds::is_ours(token)) ||
                                                    (rt && rt->is_sampler(token))))) {
    sample_signal::note_own_interruption();
    if (rt) {
      rt->handle_signal(token, perf ? 0 : info->si_overrun, context);
    }
  } else if (sample_signal::program_blocks() && sample_signal::hold(info)) {
    sample_signal::note_own_interruption();  // pending for the program, as the kernel would keep it
  } else if (!sample_signal::forward(sig, info, context)) {
    exit_signal_handler(sig);  // the program's disposition is the default: terminate
  }
  errno = saved;
}

// SIGINT and SIGTERM that would kill the program outright: have the final records written,
// then die of the signal as the program would have. The writing happens in the profiler thread
// (the interrupted thread may hold malloc's lock); this handler only waits, a bounded time.
void exit_signal_handler(int sig) {
  if (Runtime* rt = Runtime::active()) {
    rt->shutdown_from_signal();
  }
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real().sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

void install_exit_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction current = {};
    if (real().sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO)) {
      continue;  // the program (or its parent) chose what happens: leave it
    }
    struct sigaction sa = {};
    sa.sa_handler = exit_signal_handler;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    real().sigaction(sig, &sa, nullptr);
  }
}

// A sampled thread's exit (its pthread key destructor).
void thread_exit(void* state) {
  hooks_api::InsideRuntime inside;
  if (Runtime* rt = Runtime::active()) {
    rt->threads().on_thread_exit(*static_cast<ThreadState*>(state));
  }
}

}  // namespace

Runtime::Runtime(RunConfig config, ProgressPoints& points, JoinedRun run, Runtime* parent,
                 uint64_t began_ns)
    : config_(with_root(std::move(config), run)),
      own_lines_(parent ? nullptr : std::make_unique<ProgramLines>(config_, reporter_)),
      lines_(parent ? parent->lines_ : *own_lines_),
      points_(points),
      run_(std::move(run)),
      own_handoffs_(parent ? nullptr : std::make_unique<HandoffTable>()),
      handoffs_(parent ? parent->handoffs_ : *own_handoffs_),
      own_fd_keys_(parent ? nullptr : std::make_unique<FdKeys>()),
      fd_keys_(parent ? parent->fd_keys_ : *own_fd_keys_),
      began_ns_(began_ns),
      parent_(parent) {}

bool Runtime::start(const LocalDelays* forked) {
  own_fds::speak_for_program();
  start_ns_ = platform::monotonic_ns();
  if (began_ns_ == 0 || began_ns_ > start_ns_) {
    began_ns_ = start_ns_;
  }
  pid_ = getpid();
  if (config_.exec_ns == 0 || config_.exec_ns > start_ns_ || !root()) {
    config_.exec_ns = start_ns_;  // not started by `coz run`: count from the constructor
  }
  if (!forked) {  // a forked child has its parent's map (dl_iterate_phdr's lock may be held)
    lines_.map_new_objects();
  }
  // A forked child samples as its parent (no test again).
  SamplerChoice sampler = parent_ ? SamplerChoice{parent_->backend_->kind(), ""}
                                  : choose_sampler(config_.sampler, run_.run->sampler, root());
  if (!sampler.note.empty()) {
    reporter_.say(sampler.note, false);
  }
  std::string error;
  RunnerSettings runner = runner_settings(config_, root());
  if (!resolve_lines_of_run(sampler.kind, &runner, &error)) {
    fail(error);
    return false;
  }
  if (!writer_.open(config_.output, &error)) {
    fail(error);
    return false;
  }

  amplify_ = runner.amplify;
  runner_ = std::make_unique<ExperimentRunner>(
      runner, experiment_, points_, writer_, platform::monotonic_ns() ^ (uint64_t(getpid()) << 32));
  runner_->set_before_snapshot([this] {
    command_line_points_.refresh();
    points_.adopt_shared();  // points only children have visited count too
  });
  runner_->set_on_write([this](bool ok, const std::string& why) { note_write(ok, why); });

  SamplerSettings settings;
  settings.period_ns = config_.sampling_period_ns;
  // A forked child has the handler and the signal already (and no other thread to mask it in).
  settings.signal =
      forked ? platform::sample_signal() : sample_signal::install(sample_signal_handler);
  backend_ = make_sampler(sampler.kind, settings);

  install_exit_signal_handlers();
  if (forked) {
    wait_hooks::mark_runtime_here();  // the page of words kept wiped at fork: zeroes in a child
  } else {
    wait_hooks::keep_wiped_at_fork();
  }
  static bool fork_handlers = false;  // once per image: a forked child inherits them
  if (!fork_handlers) {
    fork_handlers = true;
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  }

  if (!life_.start(
          backend_.get(), thread_exit, [this] { shutdown(); }, &error)) {
    fail(error);
    writer_.close();
    return false;
  }
  if (forked) {
    t_thread_state->delays = *forked;
    t_thread_state->quiet_word = kNotQuiet;
  } else if (!root()) {
    // A program another process of the run started: it owes nothing of what was inserted before
    // it existed (the process that started it took that).
    uint64_t word = experiment_.ledger.word();
    t_thread_state->delays.epoch = epoch_count::epoch(word);
    t_thread_state->delays.ns = epoch_count::ns(word);
  }
  int wait_mode =
      parent_ ? blocked_.inherit(parent_->blocked_)  // the same kernel and clock: no new tests
              : blocked_.start(config_.off_cpu, *t_thread_state, config_.sampling_period_ns,
                               run_.run->wait_tests);
  blocked_.attach(*t_thread_state, platform::current_tid());
  reporter_.say(blocked_.describe(), false);
  // Written before the program runs, so even a run killed at once leaves a profile behind. A
  // child's record says it belongs to the root's run.
  RecordBuilder startup;
  startup.begin(root() ? vocab::kStartup : vocab::kProcess)
      .field(vocab::key::kTime, platform::wall_clock_ns());
  if (root()) {
    startup.field(vocab::key::kFormat, static_cast<uint64_t>(kProfileFormatVersion));
  }
  startup.field(vocab::key::kPid, static_cast<uint64_t>(getpid()))
      .field(vocab::key::kParent, static_cast<uint64_t>(getppid()));
  if (root()) {
    startup.field(vocab::key::kSamplingPeriod, config_.sampling_period_ns);
  }
  startup.field(vocab::key::kProgram, platform::program_name())
      .field(vocab::key::kOffCpu, blocked_.method())
      .field(vocab::key::kSampler, sampler_name(backend_->kind()));
  if (!writer_.write_block(startup, 0, &error)) {
    reporter_.say("error: could not append to " + config_.output + " (" + error + ")", true);
  }
  active_.store(this, std::memory_order_release);
  quiet_hooks::g_handoffs.store(&handoffs_, std::memory_order_release);
  quiet_hooks::g_experiment.store(&experiment_, std::memory_order_release);
  wait_hooks::set_mode(wait_mode);
  if (!forked) {
    life_.attach_existing();
  }
  if (!root()) {
    hooks_api::starting_process();  // a child is in a tree from the start
  }
  if (root() && !forked) {
    publish_run(run_, config_.follow_children);  // for the programs it runs
  }

  if (!root()) {
    absorb_own_time(began_ns_);
  }
  runner_->begin_end_to_end_early();
  // The profiler thread takes no signals meant for the program, and is not sampled.
  sigset_t all, saved;
  sigfillset(&all);
  real().pthread_sigmask(SIG_SETMASK, &all, &saved);
  // Its stack: 1 MiB, not the 8 MiB default, which is address space taken from a program under
  // an address-space limit (ulimit -v); it reads line tables of libraries loaded later and writes
  // records, with small frames (libdw's walks are loops over a parent stack it allocates).
  constexpr size_t kProfilerStack = size_t{1} << 20;
  pthread_attr_t attr;
  bool sized = pthread_attr_init(&attr) == 0;
  sized = sized && pthread_attr_setstacksize(&attr, kProfilerStack) == 0;
  profiler_running_ =
      real().pthread_create(&profiler_thread_, sized ? &attr : nullptr, profiler_main, this) == 0;
  pthread_attr_destroy(&attr);
  real().pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (!profiler_running_) {
    reporter_.say("error: cannot start the profiler thread", true);
  }
  return true;
}

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
    sample_signal::reclaim(sample_signal_handler);
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

void Runtime::handle_signal(int token, int overrun, const void* context) {
  pid_t tid = platform::current_tid();
  ThreadState* state = threads_.by_fd(token);
  if (!state || state->tid.load(std::memory_order_acquire) != tid) {
    // The number the signal names may since have been reused (its descriptor moved when the
    // program dup2()ed onto it): the thread's own state will do.
    state = t_thread_state;
    if (!state || state->tid.load(std::memory_order_acquire) != tid) {
      return;
    }
  }
  state->sampler->take(context, overrun, state->stack_lo, state->stack_hi);
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
    delays_.absorb_own(*t, now - since_ns);
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
  wait_hooks::set_mode(0);
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
  if (!writer_.write_block(final_records(platform::monotonic_ns() - start_ns_, lines_.table(),
                                         no_arrivals, root(), measured_resolution_ns(*backend_)),
                           0, &why)) {
    reporter_.say(
        "error: could not append the final records to " + config_.output + " (" + why + ")", true);
  }
  writer_.close();
  if (root()) {
    say_what_no_process_had();
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
  run.sampler = describe_sampler(*backend_, config_.sampling_period_ns);
  report_run(reporter_, run, points_);
  shutdown_done_.store(true);
}

}  // namespace coz
