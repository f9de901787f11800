// The runtime owner object: builds the parts and starts them (start-up, the profiler thread).
// Sample attribution is in sample_attribution.cpp, command-line progress points in
// command_line_points.cpp, the thread life cycle in thread_life.cpp, shut-down in shutdown.cpp.
#include "runtime/runtime.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "own_fds.h"
#include "platform.h"
#include "real_functions.h"
#include "runtime/hooks_api.h"
#include "runtime/runtime_internal.h"
#include "runtime/sample_signal.h"
#include "sample/breakpoint_counter.h"
#include "sample/perf_sampler.h"

namespace coz {

using namespace internal;

std::atomic<Runtime*> Runtime::active_{nullptr};

namespace {

void exit_signal_handler(int sig);

// Samples go to the runtime; anything else on the signal is the program's own (it sent it).
void sample_signal_handler(int sig, siginfo_t* info, void* context) {
  int saved = errno;
  Runtime* rt = Runtime::active();
  if (sample_signal::is_sample(
          info, own_fds::is_ours(info->si_fd) || (rt && rt->is_sampler(info->si_fd)))) {
    sample_signal::note_own_interruption();
    if (rt) {
      rt->handle_signal(info->si_fd);
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

void thread_key_destructor(void* state) {
  hooks_api::InsideRuntime inside;
  if (Runtime* rt = Runtime::active()) {
    rt->on_thread_exit(static_cast<ThreadState*>(state));
  }
}

// Cool-off between experiments, in sampling periods: time for samples still in flight to land
// before the next experiment's line is chosen.
constexpr uint64_t kCooloffPeriods = 10;

}  // namespace

namespace internal {

__attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_state = nullptr;

std::string format_ms(uint64_t ns) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace internal

Runtime::Runtime(RunConfig config, ProgressPoints& points)
    : config_(std::move(config)),
      scope_(config_.binary_scope, config_.source_scope, config_.include_system),
      points_(points) {}

void Runtime::report(const std::string& message, bool always) const {
  // The process `coz run` started says what it must; its children (which inherit the variable)
  // only when asked to be verbose. A program preloaded without `coz run` has no root pid.
  bool root = config_.root_pid == 0 || config_.root_pid == static_cast<uint64_t>(getpid());
  if ((always && root) || config_.verbose) {
    platform::write_stderr(("coz: " + message + "\n").c_str());
  }
}

void Runtime::add_objects_in_scope() {
  std::lock_guard<std::mutex> lock(objects_mutex_);
  struct Found {
    Runtime* self;
    std::vector<LoadedObject> objects;
  } found{this, {}};
  for_each_loaded_object(
      [](const LoadedObject& o, void* ctx) {
        auto* f = static_cast<Found*>(ctx);
        if (f->self->scope_.includes_binary(o.path, o.is_main) &&
            !f->self->map_.contains(o.path, o.bias)) {
          f->objects.push_back(o);
        }
      },
      &found);
  for (const LoadedObject& o : found.objects) {
    uint64_t t0 = platform::monotonic_ns();
    std::unique_ptr<ObjectLines> lines = load_object_lines(o, scope_, &lines_, config_.debug_path);
    if (lines->status == DebugInfoStatus::kOk) {
      report("mapped " + std::to_string(lines->lines_in_scope) + " lines in scope from " +
                 lines->debug_file + " in " + format_ms(platform::monotonic_ns() - t0),
             false);
    } else {
      report(lines->message, false);
    }
    map_.add(std::move(lines));  // kept even without lines, so it is not read again
  }
}

bool Runtime::start() {
  start_ns_ = platform::monotonic_ns();
  pid_ = getpid();
  objects_generation_ = loaded_objects_generation();
  if (config_.exec_ns == 0 || config_.exec_ns > start_ns_) {
    config_.exec_ns = start_ns_;  // not started by `coz run`: count from the constructor
  }
  add_objects_in_scope();

  size_t lines_in_scope = 0;
  std::string first_problem;
  map_.for_each_object([&](const ObjectLines& o) {
    lines_in_scope += o.lines_in_scope;
    if (o.status != DebugInfoStatus::kOk && first_problem.empty()) {
      first_problem = o.message;
    }
  });
  bool only_main = scope_.binary_patterns().size() == 1 && scope_.binary_patterns()[0] == "MAIN";
  if (lines_in_scope == 0 && only_main) {
    std::string scope = config_.source_scope.empty() ? "% but system files" : "as given";
    std::string why =
        first_problem.empty()
            ? "no source line in scope has debug information (source scope: " + scope +
                  "); compile with -g, or widen --source-scope or add "
                  "--include-system"
            : first_problem;
    report("error: " + why + "; running the program without profiling", true);
    return false;
  }

  SourceLine* fixed_line = nullptr;
  if (!config_.fixed_line.empty() &&
      !(fixed_line = resolve_line(config_.fixed_line, "--fixed-line"))) {
    return false;
  }
  if (!resolve_command_line_points()) {
    return false;
  }

  std::string error;
  if (!writer_.open(config_.output, &error)) {
    report("error: " + error + "; running the program without profiling", true);
    return false;
  }

  amplify_.arrival_speedup_ns = config_.arrival_speedup_ns;
  amplify_.load = config_.load;
  RunnerSettings runner;
  runner.amplify = amplify_;
  runner.scheduler.zero_speedup_share = config_.zero_speedup_share;
  runner.scheduler.fixed_speedup = config_.fixed_speedup;
  runner.scheduler.speedup_step = config_.speedup_step;
  runner.scheduler.initial_length_ns = config_.experiment_length_ns;
  runner.scheduler.cooloff_ns = config_.sampling_period_ns * kCooloffPeriods;
  runner.end_to_end = config_.end_to_end;
  runner.fixed_line = fixed_line;
  runner.sampling_period_ns = config_.sampling_period_ns;
  runner.run_id = config_.run_id;
  runner_ = std::make_unique<ExperimentRunner>(
      runner, experiment_, points_, writer_, platform::monotonic_ns() ^ (uint64_t(getpid()) << 32));
  runner_->set_before_snapshot([this] { refresh_breakpoint_counts(); });
  runner_->set_on_write([this](bool ok, const std::string& why) { note_write(ok, why); });

  SamplerSettings settings;
  settings.period_ns = config_.sampling_period_ns;
  settings.signal = sample_signal::install(sample_signal_handler);
  backend_ = std::make_unique<PerfSamplerBackend>(settings);

  install_exit_signal_handlers();

  pthread_key_create(&thread_key_, thread_key_destructor);
  pthread_atfork(nullptr, nullptr, [] { active_.store(nullptr, std::memory_order_release); });

  // Sample this thread first: if perf_event is refused, nothing else will work either.
  ThreadState* self = threads_.attach(platform::current_tid(), backend_.get(), &error);
  if (!self) {
    report("error: " + error + "; running the program without profiling", true);
    writer_.close();
    return false;
  }
  if (!open_breakpoints(self, platform::current_tid(), &error)) {
    report("error: --progress: " + error + "; running the program without profiling", true);
    self->sampler->disable();
    close_breakpoints(self);  // an armed execute breakpoint traps on every hit
    writer_.close();
    return false;
  }
  t_state = self;
  pthread_setspecific(thread_key_, self);
  program_threads_.fetch_add(1);
  // Written before the program runs, so even a run killed at once leaves a profile behind.
  RecordBuilder startup;
  startup.begin(vocab::kStartup)
      .field(vocab::key::kTime, platform::wall_clock_ns())
      .field(vocab::key::kFormat, static_cast<uint64_t>(kProfileFormatVersion))
      .field(vocab::key::kPid, static_cast<uint64_t>(getpid()))
      .field(vocab::key::kSamplingPeriod, config_.sampling_period_ns)
      .field(vocab::key::kProgram, platform::program_name());
  if (!writer_.write_block(startup, 0, &error)) {
    report("error: could not append to " + config_.output + " (" + error + ")", true);
  }
  active_.store(this, std::memory_order_release);
  attach_existing_threads();

  runner_->begin_end_to_end_early();
  // The profiler thread takes no signals meant for the program, and is not sampled.
  sigset_t all, saved;
  sigfillset(&all);
  real().pthread_sigmask(SIG_SETMASK, &all, &saved);
  profiler_running_ = real().pthread_create(&profiler_thread_, nullptr, profiler_main, this) == 0;
  real().pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (!profiler_running_) {
    report("error: cannot start the profiler thread", true);
  }
  return true;
}

void* Runtime::profiler_main(void* arg) {
  auto* self = static_cast<Runtime*>(arg);
  hooks_api::mark_profiler_thread();  // its locks, waits and joins are the runtime's own
  self->ready_ns_ = platform::monotonic_ns();
  self->report("profiler ready " + format_ms(self->ready_ns_ - self->config_.exec_ns) +
                   " after exec (" + format_ms(self->ready_ns_ - self->start_ns_) +
                   " in the runtime); " + std::to_string(self->lines_.size()) + " lines in scope",
               false);
  // dlopen is not interposed (glibc resolves $ORIGIN and RUNPATH relative to dlopen's caller,
  // which must stay the program): the runner polls for new libraries between experiments.
  // It also takes the sampling signal back if the program replaced its handler without the hooks.
  self->runner_->run([self] {
    self->check_for_new_objects();
    sample_signal::reclaim(sample_signal_handler);
  });
  if (self->signal_shutdown_.load(std::memory_order_acquire)) {
    self->finish_shutdown();  // for a thread in a SIGINT/SIGTERM handler (shutdown_from_signal)
  }
  return nullptr;
}

void Runtime::check_for_new_objects() {
  uint64_t generation = loaded_objects_generation();
  if (generation != objects_generation_) {
    objects_generation_ = generation;
    add_objects_in_scope();
  }
}

}  // namespace coz
