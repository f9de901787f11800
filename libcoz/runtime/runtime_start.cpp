// Runtime::start, step by step (see runtime.h): what a process of the run does before the
// program's own code runs (the root, a program the run started) or goes on (a forked child).
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>

#include <cstring>

#include "base/own_fds.h"
#include "base/platform.h"
#include "base/real_functions.h"
#include "delays/ledger_trace.h"
#include "hooks/hook_state.h"
#include "hooks/quiet_hooks.h"
#include "line/elf_sections.h"
#include "record/vocabulary.h"
#include "runtime/runtime.h"
#include "sample/sampler_choice.h"
#include "signals/process_signals.h"
#include "signals/sample_signal.h"

namespace coz {

namespace {

int note_libgomp(dl_phdr_info* info, size_t, void* found) {
  if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "/libgomp.so") != nullptr) {
    *static_cast<bool*>(found) = true;
    return 1;
  }
  return 0;
}

// What this program's waits the hooks cannot see, as a warning; empty when they see them all.
std::string unseen_waits_note() {
  std::string program = platform::program_name();
  if (is_go_binary("/proc/self/exe")) {
    return program +
           " is a Go program: its runtime parks threads with raw futex system calls that no hook "
           "sees, so waits between its threads are not followed and a line whose work another "
           "thread waits for may read too low";
  }
  bool openmp = false;
  dl_iterate_phdr(note_libgomp, &openmp);
  const char* policy = getenv("OMP_WAIT_POLICY");  // active: its threads spin, samples see them
  if (openmp && !(policy != nullptr && strcasecmp(policy, "active") == 0)) {
    return program +
           " uses OpenMP (libgomp): its parallel regions and barriers are followed, but its "
           "locks, critical sections, ordered sections and tasks park threads with futex system "
           "calls that no hook sees, so lines that wait on them may read too low; "
           "OMP_WAIT_POLICY=active keeps its waiting threads on the CPU, where samples see them";
  }
  return "";
}

}  // namespace

bool Runtime::start(const LocalDelays* forked) {
  own_fds::speak_for_program(&run_.run->descriptors_said);
  begin_clocks();
  if (role() != RunRole::kForkFollower) {  // a forked child has its parent's map (dl_iterate_phdr's
    lines_.map_new_objects();              // lock may be held)
  }
  const SamplerChoice sampler = pick_sampler();
  std::string error;
  if (!open_run(sampler.kind, &error)) {
    fail(error);
    return false;
  }
  install_sampler(sampler.kind);
  install_process_handlers();
  if (!start_threads(forked, &error)) {
    fail(error);
    writer_.close();
    return false;
  }
  const int wait_mode = start_waits();
  write_startup_record();
  go_live(wait_mode);
  start_profiler_thread();
  return true;
}

void Runtime::begin_clocks() {
  start_ns_ = platform::monotonic_ns();
  if (began_ns_ == 0 || began_ns_ > start_ns_) {
    began_ns_ = start_ns_;
  }
  pid_ = getpid();
  if (config_.exec_ns == 0 || config_.exec_ns > start_ns_ || role() != RunRole::kRoot) {
    config_.exec_ns = start_ns_;  // not started by `coz run`: count from the constructor
  }
}

SamplerChoice Runtime::pick_sampler() const {
  // Every process of a run samples the same way: a forked child as its parent, a follower asked
  // for auto as the root chose (run_->sampler: SamplerKind + 1, 0 while unset), without testing
  // again; the root chooses and writes it there.
  SamplerChoice sampler;
  int32_t run_choice = run_.run->sampler.load(std::memory_order_acquire);
  if (role() == RunRole::kForkFollower) {
    sampler.kind = parent_->backend_->kind();
  } else if (!root() && config_.sampler == SamplerRequest::kAuto && run_choice > 0) {
    sampler.kind = static_cast<SamplerKind>(run_choice - 1);
  } else {
    sampler = choose_sampler(config_.sampler);
  }
  if (root()) {
    run_.run->sampler.store(static_cast<int32_t>(sampler.kind) + 1, std::memory_order_release);
  }
  if (!sampler.note.empty()) {
    reporter_.say(sampler.note, sampler.warn);
  }
  return sampler;
}

bool Runtime::open_run(SamplerKind sampler, std::string* error) {
  RunnerSettings runner = runner_settings(config_, root());
  if (!resolve_lines_of_run(sampler, &runner, error) || !writer_.open(config_.output, error)) {
    return false;
  }
  amplify_ = runner.amplify;
  if (root() && !config_.ledger_trace.empty() &&
      !ledger_trace::open(config_.ledger_trace.c_str())) {
    reporter_.say("warning: no memory for the ledger trace; running without it", false);
  }
  runner_ = std::make_unique<ExperimentRunner>(
      runner, experiment_, points_, writer_, platform::monotonic_ns() ^ (uint64_t(getpid()) << 32));
  runner_->set_before_snapshot([this] {
    command_line_points_.refresh();
    points_.adopt_shared();  // points only children have visited count too
  });
  runner_->set_on_write([this](bool ok, const std::string& why) { note_write(ok, why); });
  runner_->set_progress_threads([this] { progress_.begin(); }, [this] { return progress_.end(); });
  if (!config_.coordinator.empty()) {
    membership_.take_part(root(), *runner_, lines_.table());
  }
  return true;
}

namespace {

// The runtime's side of the signal handlers (process_signals.h), each through active().
const process_signals::Sink kSignalSink = {
    [](int token) {
      Runtime* rt = Runtime::active();
      return rt && rt->is_sampler(token);
    },
    [](const siginfo_t& info, const void* context) {
      if (Runtime* rt = Runtime::active()) {
        rt->handle_signal(info, context);
      }
    },
    [] {
      if (Runtime* rt = Runtime::active()) {
        rt->shutdown_from_signal();
      }
    },
};

// A sampled thread's exit (its pthread key's destructor).
void on_thread_exit(void* state) {
  hooks_api::InsideRuntime inside;
  if (Runtime* rt = Runtime::active()) {
    rt->threads().on_thread_exit(*static_cast<ThreadState*>(state));
  }
}

}  // namespace

void Runtime::install_sampler(SamplerKind sampler) {
  SamplerSettings settings;
  settings.period_ns = config_.sampling_period_ns;
  settings.create_thread = real().pthread_create;
  // A forked child has the handler and the signal already (and no other thread to mask it in).
  settings.signal = role() == RunRole::kForkFollower
                        ? platform::sample_signal()
                        : sample_signal::install(process_signals::on_sample_signal);
  backend_ = make_sampler(sampler, settings);
}

void Runtime::install_process_handlers() {
  process_signals::connect(&kSignalSink);
  process_signals::install_exit_handlers();
  if (role() == RunRole::kForkFollower) {
    wait_timing::mark_runtime_here();  // the page of words kept wiped at fork: zeroes in a child
  } else {
    wait_timing::keep_wiped_at_fork();
  }
  static bool fork_handlers = false;  // once per image: a forked child inherits them
  if (!fork_handlers) {
    fork_handlers = true;
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  }
}

bool Runtime::start_threads(const LocalDelays* forked, std::string* error) {
  if (!life_.start(
          backend_.get(), on_thread_exit, [this] { shutdown(); }, error)) {
    return false;
  }
  switch (role()) {
    case RunRole::kForkFollower:  // the forking thread's count goes on in the child's one thread
      t_thread_state->delays = *forked;
      t_thread_state->quiet_word = kNotQuiet;
      break;
    case RunRole::kExecFollower: {
      // A program another process of the run started: it owes nothing of what was inserted
      // before it existed (the process that started it took that).
      uint64_t word = experiment_.ledger.word();
      t_thread_state->delays.epoch = epoch_count::epoch(word);
      t_thread_state->delays.ns = epoch_count::ns(word);
      break;
    }
    case RunRole::kRoot:
    case RunRole::kOff:  // never started: entry.cpp leaves such a process alone
      break;
  }
  return true;
}

int Runtime::start_waits() {
  int wait_mode =
      role() == RunRole::kForkFollower
          ? blocked_.inherit(parent_->blocked_)  // the same kernel and clock: no new tests
          : blocked_.start(config_.off_cpu, *t_thread_state, config_.sampling_period_ns,
                           run_.run->wait_tests);
  blocked_.attach(*t_thread_state, platform::current_tid());
  reporter_.say(blocked_.describe(), false);
  return wait_mode;
}

void Runtime::write_startup_record() {
  // Written before the program runs, so even a run killed at once leaves a profile behind. A
  // follower's record says it belongs to the root's run.
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
      .field(vocab::key::kSampler, backend_->name());
  // Go and gcc's OpenMP park their threads with raw futex system calls, which no hook sees (of
  // OpenMP's, interpose/openmp_hooks.cpp follows regions and barriers): said at start-up and kept
  // in the profile, where coz report shows it under its summary (docs/where-it-runs.md).
  if (role() != RunRole::kForkFollower) {
    std::string unseen = unseen_waits_note();
    if (!unseen.empty()) {
      startup.begin(vocab::kWarning).field(vocab::key::kMessage, unseen);
      reporter_.say("warning: " + unseen, true);
    }
  }
  std::string error;
  if (!writer_.write_block(startup, 0, &error)) {
    reporter_.say("error: could not append to " + config_.output + " (" + error + ")", true);
  }
}

void Runtime::go_live(int wait_mode) {
  active_.store(this, std::memory_order_release);
  quiet_hooks::g_handoffs.store(&handoffs_, std::memory_order_release);
  quiet_hooks::g_experiment.store(&experiment_, std::memory_order_release);
  wait_timing::set_mode(wait_mode);
  if (role() != RunRole::kForkFollower) {
    life_.attach_existing();
  }
  if (role() == RunRole::kRoot) {
    publish_run(run_, config_.follow_children);  // for the programs it runs
  } else {
    hooks_api::starting_process();  // a follower is in a tree from the start
    absorb_own_time(began_ns_);
  }
  runner_->begin_end_to_end_early();
}

void Runtime::start_profiler_thread() {
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
}

}  // namespace coz
