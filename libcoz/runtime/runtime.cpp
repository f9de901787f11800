// The runtime owner object: start-up, per-thread sampling, sample attribution, shut-down.
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
#include "runtime/sample_signal.h"
#include "sample/breakpoint_counter.h"
#include "sample/perf_sampler.h"

namespace coz {

std::atomic<Runtime*> Runtime::active_{nullptr};

namespace {

// The calling thread's state; initial-exec TLS so the signal handler never allocates.
__attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_state = nullptr;

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

// Blocks the sample signal in the calling thread for the lifetime of the guard.
class SampleSignalBlock {
 public:
  SampleSignalBlock() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, platform::sample_signal());
    real().pthread_sigmask(SIG_BLOCK, &set, &saved_);
  }
  ~SampleSignalBlock() { real().pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

 private:
  sigset_t saved_;
};

// What sample processing carries through a drain.
struct SampleContext {
  Runtime* runtime;
  uint64_t selected;  // samples in the selected line
};

// Cool-off between experiments, in sampling periods: time for samples still in flight to land
// before the next experiment's line is chosen.
constexpr uint64_t kCooloffPeriods = 10;

constexpr const char* kNoArrivalWarning =
    "load amplification was asked for but the program never reached an arrival point, so no "
    "load was added; add COZ_ARRIVAL (or COZ_BEGIN) where a request arrives";

std::string format_ms(uint64_t ns) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

Runtime::Runtime(Config config, ProgressPoints& points)
    : config_(std::move(config)),
      scope_(config_.binary_scope, config_.source_scope, config_.include_system),
      points_(points) {}

void Runtime::report(const std::string& message, bool always) const {
  if ((always && config_.is_root_process) || config_.verbose) {
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

void Runtime::attach_existing_threads() {
  // Threads started before the constructor ran (by other libraries' constructors).
  DIR* dir = opendir("/proc/self/task");
  if (!dir) {
    return;
  }
  pid_t self = platform::current_tid();
  while (dirent* entry = readdir(dir)) {
    pid_t tid = static_cast<pid_t>(atoi(entry->d_name));
    if (tid <= 0 || tid == self) {
      continue;
    }
    std::string error;
    ThreadState* state = threads_.attach(tid, backend_.get(), &error, /*scan=*/true);
    if (!state) {
      note_unsampled_thread(error);
    } else if (!open_breakpoints(state, tid, &error)) {
      report("warning: --progress: " + error, true);
    }
    // Not counted in program_threads_: they are never detached (their exit runs no hook).
  }
  closedir(dir);
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

LocalDelays Runtime::current_delays() const {
  return t_state ? t_state->delays : LocalDelays();
}

SourceLine* Runtime::resolve_line(const std::string& spec, const char* option) {
  size_t colon = spec.rfind(':');
  bool ambiguous = false;
  SourceLine* line =
      colon == std::string::npos
          ? nullptr
          : lines_.find(spec.substr(0, colon),
                        static_cast<uint32_t>(atoi(spec.c_str() + colon + 1)), &ambiguous);
  if (!line) {
    report(
        std::string("error: ") + option + " " + spec +
            (ambiguous ? " names more than one file; give more of the path"
                       : " has no code in scope; pick a line that the compiler emitted code for") +
            "; running the program without profiling",
        true);
  }
  return line;
}

bool Runtime::resolve_command_line_points() {
  if (config_.breakpoint_progress.size() > kMaxBreakpoints) {
    report("error: at most " + std::to_string(kMaxBreakpoints) +
               " --progress points (the CPU has that many debug registers); use "
               "--sampled-progress for more; running the program without profiling",
           true);
    return false;
  }
  for (const std::string& spec : config_.breakpoint_progress) {
    SourceLine* line = resolve_line(spec, "--progress");
    if (!line) {
      return false;
    }
    // The line's first instruction: its lowest address in any loaded object.
    uintptr_t first = 0;
    map_.for_each_object([&](const ObjectLines& o) {
      for (const AddressRange& r : o.ranges) {
        if (r.line == line && (first == 0 || r.lo < first)) {
          first = r.lo;
        }
      }
    });
    Breakpoint& bp = breakpoints_[breakpoints_count_++];
    bp.address = first;
    bp.counter = points_.get(static_cast<int>(PointKind::kThroughput), spec.c_str());
  }
  for (const std::string& spec : config_.sampled_progress) {
    SourceLine* line = resolve_line(spec, "--sampled-progress");
    if (!line) {
      return false;
    }
    if (sampled_points_count_ == kMaxSampledPoints) {
      report("error: at most " + std::to_string(kMaxSampledPoints) +
                 " --sampled-progress points; running the program without profiling",
             true);
      return false;
    }
    sampled_points_[sampled_points_count_++] = {
        line, points_.get(static_cast<int>(PointKind::kThroughput), spec.c_str())};
  }
  return true;
}

bool Runtime::open_breakpoints(ThreadState* state, pid_t tid, std::string* error) {
  bool ok = true;
  threads_.locked([&] {
    for (size_t i = 0; i < breakpoints_count_ && ok; i++) {
      if (state->breakpoint_fds[i].load() < 0) {  // not opened already (a thread attached twice)
        state->breakpoint_fds[i].store(
            open_breakpoint_counter(breakpoints_[i].address, tid, error));
        ok = state->breakpoint_fds[i].load() >= 0;
        if (ok) {
          own_fds::adopt(&state->breakpoint_fds[i]);
        }
      }
    }
  });
  return ok;
}

void Runtime::close_breakpoints(ThreadState* state) {
  if (breakpoints_count_ == 0) {
    return;
  }
  threads_.locked([&] {  // refresh_breakpoint_counts() must not read a descriptor being closed
    for (size_t i = 0; i < breakpoints_count_; i++) {
      int fd = state->breakpoint_fds[i].load();
      if (fd >= 0) {
        // A number the program took over (a raw syscall) is never read; the lock keeps a dup2
        // from landing between the check and the read.
        own_fds::Lock fds;
        uint64_t count = own_fds::still_ours(fd) ? read_breakpoint_counter(fd) : 0;
        own_fds::release(&state->breakpoint_fds[i]);
        breakpoints_[i].retired.fetch_add(count, std::memory_order_relaxed);
      }
    }
  });
}

void Runtime::refresh_breakpoint_counts() {
  if (breakpoints_count_ == 0) {
    return;
  }
  uint64_t totals[kMaxBreakpoints] = {};
  // Under the registry lock throughout: an exiting thread moves its count to `retired` under
  // the same lock, so it is counted once, and its descriptor stays open while it is read.
  threads_.for_each_live(
      [&](ThreadState& s) {
        own_fds::Lock fds;  // see close_breakpoints (always taken inside the registry lock)
        for (size_t i = 0; i < breakpoints_count_; i++) {
          int fd = s.breakpoint_fds[i].load();
          if (fd >= 0 && own_fds::still_ours(fd)) {
            totals[i] += read_breakpoint_counter(fd);
          }
        }
      },
      [&] {
        for (size_t i = 0; i < breakpoints_count_; i++) {
          totals[i] += breakpoints_[i].retired.load(std::memory_order_relaxed);
        }
      });
  for (size_t i = 0; i < breakpoints_count_; i++) {
    __atomic_store_n(&breakpoints_[i].counter->count, totals[i], __ATOMIC_RELAXED);
  }
}

void Runtime::on_thread_start(const LocalDelays& inherited) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);  // the program may have blocked everything
  std::string error;
  ThreadState* state = threads_.attach(platform::current_tid(), backend_.get(), &error);
  if (!state) {
    note_unsampled_thread(error);
    thread_gone();  // it runs on, unsampled and uncounted
    return;
  }
  state->delays = inherited;
  if (!open_breakpoints(state, platform::current_tid(), &error)) {
    report("warning: --progress misses a thread: " + error, true);
  }
  t_state = state;
  pthread_setspecific(thread_key_, state);
}

void Runtime::thread_created() {
  program_threads_.fetch_add(1);
}

void Runtime::thread_gone() {
  if (program_threads_.fetch_sub(1) == 1) {
    shutdown();  // the last program thread (main left with pthread_exit): nothing runs anymore
  }
}

void Runtime::note_unsampled_thread(const std::string& error) {
  if (unsampled_threads_.fetch_add(1) == 0) {
    std::lock_guard<std::mutex> lock(unsampled_mutex_);
    unsampled_reason_ = error;
  }
  report("cannot sample a thread: " + error, false);
}

namespace {

// Takes back the sample signals still queued to the calling thread for its sampler on `fd`,
// which detach has just closed. A sample taken between blocking the signal and disabling the
// sampler leaves one queued; delivered once the mask is restored, its descriptor would name no
// sampler any more, so it would pass for the program's own signal (killing a program that has
// no handler for it: measured, 1 run in about 10 of 20,000 short-lived threads). Signals of that
// number that are not this sampler's are queued again, in order, as they were. Raw syscalls:
// the program's sigtimedwait and sigqueue hooks must not see these.
void discard_stale_samples(int fd) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, platform::sample_signal());
  timespec zero = {0, 0};
  siginfo_t kept[8];
  size_t n = 0;
  siginfo_t info;
  while (n < 8 && syscall(SYS_rt_sigtimedwait, &set, &info, &zero, _NSIG / 8) > 0) {
    if (!(info.si_code >= POLL_IN && info.si_code <= POLL_HUP && info.si_fd == fd)) {
      kept[n++] = info;
    }
  }
  for (size_t i = 0; i < n; i++) {
    syscall(SYS_rt_tgsigqueueinfo, getpid(), platform::current_tid(), kept[i].si_signo, &kept[i]);
  }
}

}  // namespace

void Runtime::on_thread_exit(ThreadState* state) {
  SampleSignalBlock block;
  // Samples still in the ring: their selected-line samples still count. Exiting wakes the
  // joiner, so the thread first pays what it owes (a short thread in a fork-join round would
  // otherwise skip delays it never met at a hook or a sample, and a joiner already credited by
  // another join would not pay them either), then hands the joiner its final total.
  state->sampler->disable();
  SampleContext context{this, 0};
  state->samples += state->sampler->drain(count_sample, &context);
  state->pending_selected += context.selected;
  catch_up_fully();
  before_wake(thread_handoff_key(pthread_self()));
  close_breakpoints(state);
  t_state = nullptr;
  int fd = state->sampler->signal_fd();
  threads_.detach(state, count_sample, &context);
  discard_stale_samples(fd);
  thread_gone();
}

void Runtime::check_for_new_objects() {
  uint64_t generation = loaded_objects_generation();
  if (generation != objects_generation_) {
    objects_generation_ = generation;
    add_objects_in_scope();
  }
}

void Runtime::handle_signal(int fd) {
  pid_t tid = platform::current_tid();
  ThreadState* state = threads_.by_fd(fd);
  if (!state || state->tid.load(std::memory_order_acquire) != tid) {
    // The number the signal names may since have been reused (its descriptor moved when the
    // program dup2()ed onto it): the thread's own state will do.
    state = t_state;
    if (!state || state->tid.load(std::memory_order_acquire) != tid) {
      return;
    }
  }
  delays_.on_signal(*state);
}

void Runtime::delay_inserted(uint64_t ns) {
  if (ns == 0) {
    return;
  }
  for (ProgressPoint* p = points_.latency_points(); p;
       p = p->next_latency.load(std::memory_order_acquire)) {
    uint64_t n = InFlight::count(p->read(p->begin), p->read(p->end));
    if (n != 0) {
      p->delay_in_flight_ns.fetch_add(n * ns, std::memory_order_relaxed);
    }
  }
}

Counter* Runtime::new_arrival_counter(const char* name) {
  ThreadState* state = t_state;
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

void Runtime::lock_acquired() {
  if (ThreadState* state = t_state) {
    delays_.lock_acquired(*state);
  }
}

void Runtime::lock_released() {
  if (ThreadState* state = t_state) {
    delays_.lock_released(*state);
  }
}

void Runtime::count_sample(const Sample& sample, void* arg) {
  auto* context = static_cast<SampleContext*>(arg);
  Runtime* self = context->runtime;
  self->total_samples_.fetch_add(1, std::memory_order_relaxed);
  const AddressRange* range = self->map_.lookup(sample.ip);
  // Outside scope: charge the innermost in-scope call site. Library code often has no frame
  // pointers, so the callchain skips its caller; the top of the stack holds the return address
  // into it, so look there first for a word that returns just after an in-scope call.
  for (size_t i = 0; !range && i < sample.stack_words; i++) {
    uintptr_t ret = static_cast<uintptr_t>(sample.stack[i]);
    const AddressRange* r = self->map_.lookup(ret - 1);
    if (r && platform::follows_call(ret)) {
      range = r;
    }
  }
  for (size_t i = 0; !range && i < sample.depth; i++) {
    range = self->map_.lookup(static_cast<uintptr_t>(sample.callchain[i]) - 1);
  }
  if (range) {
    range->line->samples.fetch_add(1, std::memory_order_relaxed);
    for (size_t i = 0; i < self->sampled_points_count_; i++) {
      if (self->sampled_points_[i].line == range->line) {
        __atomic_add_fetch(&self->sampled_points_[i].counter->count, 1, __ATOMIC_RELAXED);
      }
    }
    self->in_scope_samples_.fetch_add(1, std::memory_order_relaxed);
    if (self->experiment_.on_sample(range->line)) {
      context->selected++;
    }
  }
}

uint64_t Runtime::Environment::now_ns() {
  return platform::monotonic_ns();
}

void Runtime::Environment::sleep_ns(uint64_t ns) {
  timespec request = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  int saved = errno;
  while (real().nanosleep(&request, &request) != 0 && errno == EINTR) {
  }
  errno = saved;
}

bool Runtime::Environment::collect(ThreadDelays& t) {
  return runtime_.collect_own_samples(static_cast<ThreadState*>(&t));
}

// Counts the samples this thread's ring holds: from the sampling signal, or from a hook (the
// delay protocol: a signal arriving meanwhile defers to the hook). False if another thread
// (shut-down) is draining it.
bool Runtime::collect_own_samples(ThreadState* state) {
  if (!state->sampler->has_pending() && !state->draining.load(std::memory_order_acquire)) {
    return true;  // the common case in a hook: two loads, no atomic exchange, no store to the ring
  }
  if (!state->try_begin_drain()) {
    return false;
  }
  SampleContext context{this, 0};
  state->samples += state->sampler->drain(count_sample, &context);
  state->end_drain();
  state->pending_selected += context.selected;
  return true;
}

void Runtime::catch_up() {
  if (ThreadState* state = t_state) {
    delays_.catch_up(*state);
  }
}

void Runtime::catch_up_fully() {
  if (ThreadState* state = t_state) {
    delays_.catch_up_fully(*state);
  }
}

void Runtime::before_block() {
  if (ThreadState* state = t_state) {
    delays_.before_block(*state);
  }
}

void Runtime::before_wake(const void* key) {
  if (ThreadState* state = t_state) {
    delays_.before_wake(*state, key);
  }
}

void Runtime::after_block(const void* key, bool woken) {
  if (ThreadState* state = t_state) {
    delays_.after_block(*state, key, woken);
  }
}

void Runtime::post_block(bool woken) {
  if (ThreadState* state = t_state) {
    delays_.after_block(*state, nullptr, woken);
  }
}

void Runtime::drain_all_threads() {
  threads_.for_each_live([this](ThreadState& s) {
    s.sampler->disable();
    if (s.try_begin_drain()) {
      SampleContext context{this, 0};
      s.samples += s.sampler->drain(count_sample, &context);
      // Count the samples still in the ring in the experiment's delays (raising the global count
      // only: nobody pauses at exit).
      if (experiment_.ledger.active()) {
        s.pending_selected += context.selected;
        delay_inserted(experiment_.ledger.absorb(
            s.delays, s.pending_selected * experiment_.ledger.delay_ns()));
        s.pending_selected = 0;
      }
      s.end_drain();
    }
  });
}

void Runtime::write_final_records() {
  RecordBuilder block;
  block.begin(vocab::kRuntime).field(vocab::key::kTime, platform::monotonic_ns() - start_ns_);
  lines_.for_each([&block](const SourceLine& line) {
    uint64_t n = line.samples.load(std::memory_order_relaxed);
    if (n > 0) {
      block.begin(vocab::kSamples)
          .field(vocab::key::kLocation, line.name())
          .field(vocab::key::kCount, n);
    }
  });
  if (amplify_.requested() && !points_.any_arrivals()) {
    block.begin(vocab::kWarning).field(vocab::key::kMessage, kNoArrivalWarning);
  }
  std::string why;
  if (!writer_.write_block(block, 0, &why)) {
    report("error: could not append the final records to " + config_.output + " (" + why + ")",
           true);
  }
}

void Runtime::note_write(bool ok, const std::string& why) {
  if (!ok && !write_failing_) {
    report("error: could not append an experiment to " + config_.output + " (" + why +
               "); it is kept and tried again with the next one",
           true);
  } else if (ok && write_failing_) {
    report("the profile is written again: the experiments that waited are now in " + config_.output,
           true);
  }
  write_failing_ = !ok;
}

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
  SampleSignalBlock block;
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

void Runtime::finish_shutdown() {
  active_.store(nullptr, std::memory_order_release);
  drain_all_threads();  // so an end-to-end experiment counts every selected-line sample
  runner_->finish();
  write_final_records();
  writer_.close();
  if (uint64_t unwritten = writer_.unwritten_experiments()) {
    report("error: " + std::to_string(unwritten) + " of " + std::to_string(runner_->experiments()) +
               " experiments could not be written to " + config_.output +
               "; free space there (or choose another file with -o) and run again",
           true);
  }

  uint64_t total = total_samples_.load();
  uint64_t in_scope = in_scope_samples_.load();
  char line[256];
  snprintf(line, sizeof line,
           "%" PRIu64 " samples (%" PRIu64 " in scope) from %" PRIu64 " threads in %s; %" PRIu64
           " experiments, %s of delays; profile: %s",
           total, in_scope, threads_.total_attached(),
           format_ms(platform::monotonic_ns() - start_ns_).c_str(), runner_->experiments(),
           format_ms(delays_.paused_ns()).c_str(), config_.output.c_str());
  report(line, false);
  if (uint64_t missed = unsampled_threads_.load()) {
    std::lock_guard<std::mutex> lock(unsampled_mutex_);
    report("warning: " + std::to_string(missed) + " of " +
               std::to_string(missed + threads_.total_attached()) +
               " threads were not sampled, so the profile misses their work: " + unsampled_reason_,
           true);
  }
  uint64_t visits = 0;
  points_.for_each([&visits](const ProgressPoint& p) {
    visits += p.read(p.throughput) + p.read(p.begin) + p.read(p.end);
  });
  if (amplify_.requested() && !points_.any_arrivals()) {
    report(std::string("warning: ") + kNoArrivalWarning, true);
  }
  if (visits == 0) {
    report(
        "warning: no progress point was visited, so no speedup can be measured; add "
        "COZ_PROGRESS (include/coz.h) where a unit of work completes",
        true);
  }
  points_.for_each([this](const ProgressPoint& p) {
    if (p.is_latency) {
      report("latency point " + p.name + ": " + std::to_string(p.read(p.begin)) + " begins, " +
                 std::to_string(p.read(p.end)) + " ends",
             false);
    } else {
      report("progress point " + p.name + ": " + std::to_string(p.read(p.throughput)) + " visits",
             false);
    }
  });
  shutdown_done_.store(true);
}

}  // namespace coz
