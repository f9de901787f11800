// The runtime: the one object that owns the parts of a profiled process and wires them together.
// It holds the program's lines (program_lines.h), the thread registry and life cycle
// (thread_life.h), the command-line points, sample attribution and the delay protocol with its
// real environment, the sampler backend, the profile writer and the profiler thread's
// experiments; it starts them and shuts them down. Hooks reach it through hooks/hooks_api.h, the
// signal handlers (signals/process_signals.h) through the Sink it connects, both finding it by
// Runtime::active(), a single atomic pointer. What the hooks read of the
// active runtime without a call (Runtime::active_, quiet_hooks' g_experiment and g_handoffs, the
// wait mode on wait_hooks' page wiped at fork) is set in go_live() and cleared at shut-down
// (finish_shutdown) and in a forked child (after_fork_in_child); process_tree.cpp's g_forking
// (the runtime whose locks fork() holds), shared_run.cpp's g_run_fd (the run's shared memory) and
// hook_state.h's g_in_tree (this process is in a tree) are the process's place in the run, not
// the runtime's. Beside it live only per-thread values (t_thread_state, the hooks' re-entry
// depth), the sampling signal's number (platform.h's g_sample_signal) and dispositions
// (sample_signal.h), the table of the profiler's own descriptors (own_fds.h), the table of real
// functions (real_functions.h) and the process-wide progress points (entry.cpp), which outlive
// the runtime.
//
// Threading: start() runs once, in the library constructor. handle_signal() runs in signal
// context: it drains the thread's samples, looks up their lines and pays the thread's delays
// (DelayProtocol::on_signal). shutdown() runs once, in the thread that exits the process (later
// callers wait); after it, active() returns nullptr.
#pragma once

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "attribution/command_line_points.h"
#include "attribution/sample_attribution.h"
#include "config/run_config.h"
#include "delays/blocked_time.h"
#include "delays/delay_protocol.h"
#include "delays/real_delay_environment.h"
#include "experiment/arrival_pacer.h"
#include "experiment/experiment_state.h"
#include "hooks/fd_keys.h"
#include "points/progress_points.h"
#include "profiler/experiment_runner.h"
#include "record/profile_writer.h"
#include "runtime/membership.h"
#include "runtime/program_lines.h"
#include "runtime/reporter.h"
#include "runtime/shared_run.h"
#include "runtime/thread_life.h"
#include "sample/sampler.h"
#include "sample/sampler_choice.h"
#include "threads/thread_registry.h"

namespace coz {

class Runtime {
 public:
  // `points` outlives the runtime: programs may look counters up before it starts. `run` is the
  // run this process takes part in (as root or follower; not kOff). A forked child's runtime
  // keeps its `parent`'s lines (the same code at the same addresses, mapped already), hand-off
  // table and descriptor keys (copies of the parent's memory, written on demand): a child made
  // for a few milliseconds of work does not zero or map them again.
  // `began_ns` (CLOCK_MONOTONIC): when this process's runtime began its work (the library
  // constructor, fork()'s child handler); 0: when start() begins.
  Runtime(RunConfig config, ProgressPoints& points, JoinedRun run, Runtime* parent = nullptr,
          uint64_t began_ns = 0);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The running runtime, or nullptr before start-up finished, after shut-down, or when profiling
  // is off in this process.
  static Runtime* active() { return active_.load(std::memory_order_acquire); }

  // Builds the line map, starts sampling in every existing thread and the profiler thread.
  // Returns false (after telling the user why, if this is the root process) when profiling
  // cannot run; the program then runs unprofiled.
  // In a forked child, `forked` is the forking thread's delay count (the child's only thread
  // goes on with it, as a new thread goes on with its creator's).
  bool start(const LocalDelays* forked = nullptr);
  // Writes the final records and stops profiling. Later callers wait (briefly) until the first
  // has finished, so a second exit path cannot end the process mid-write.
  void shutdown();
  // From a signal handler: asks the profiler thread to write the final records and waits for
  // it (bounded). Async-signal-safe.
  void shutdown_from_signal();
  // False in a vfork child, which shares this process's memory but is not it.
  bool owns_this_process() const { return getpid() == pid_; }
  // Whether this process runs the experiments (the run's root), else it follows them.
  bool root() const { return run_.role == RunRole::kRoot; }
  // What this process is in the run (shared_run.h): the root, or a follower by exec or by fork.
  RunRole role() const { return run_.role; }

  // The parts the hooks act through (hooks_api.cpp), for the calling thread.
  DelayProtocol& delays() { return delays_; }
  BlockedTime& blocked() { return blocked_; }
  FdKeys& fd_keys() { return fd_keys_; }
  // Across the run's processes (a pipe, a child's exit): publishes the thread's count under
  // `key` for a waiter in another process, and credits a thread whose wait of `waited_ns` such a
  // waker ended (DelayProtocol::before_wake and after_block, on the run's shared table).
  void wake_across(ThreadState& t, const void* key) {
    delays_.before_wake(t, key, run_.run->handoffs);
  }
  // About to replace this process's image (an exec that may succeed).
  void before_exec();
  void woken_across(ThreadState& t, const void* key, uint64_t waited_ns) {
    if (key) {
      delays_.woken_across(t, run_.run->handoffs, key, waited_ns);
    }
  }
  // In a run across programs: a wait on socket `fd` that data ended (Membership::woken).
  void woken_by_member(ThreadState& t, int fd) { membership_.woken(t, fd); }
  ThreadLife& threads() { return life_; }
  // COZ_ARRIVAL's first visit in the calling thread: a counter of that thread's own. Locks and
  // allocates.
  Counter* new_arrival_counter(const char* name);

  // A sample signal, read by this process's engine (SamplerBackend::reads_signal), with the
  // interrupted `context` (a ucontext_t). Async-signal-safe.
  void handle_signal(const siginfo_t& info, const void* context);
  // Whether `token` is (or was registered as) a thread's sampler's. Async-signal-safe.
  bool is_sampler(int token) const { return threads_.by_fd(token) != nullptr; }

 private:
  static void* profiler_main(void* self);
  // start()'s steps, in order (runtime_start.cpp).
  void begin_clocks();
  SamplerChoice pick_sampler() const;
  // The run's lines resolved, the profile opened and the experiment runner made; false with
  // `error` when profiling cannot run here.
  bool open_run(SamplerKind sampler, std::string* error);
  void install_sampler(SamplerKind sampler);
  // SIGINT/SIGTERM, the page wiped at fork, fork()'s handlers.
  void install_process_handlers();
  // Sampling in the calling thread, with the delay count its role starts with.
  bool start_threads(const LocalDelays* forked, std::string* error);
  // How waits are timed (off-CPU profiling); returns the mode the hooks read.
  int start_waits();
  void write_startup_record();
  // The hooks see this runtime from here on; a root publishes the run for the programs it runs,
  // a follower joins its tree.
  void go_live(int wait_mode);
  void start_profiler_thread();
  // `config` as this process's runtime uses it: a follower's messages are the root's to say
  // (Reporter: only --verbose ones from other processes), with or without `coz run`.
  static RunConfig with_root(RunConfig config, const JoinedRun& run) {
    if (is_follower(run.role)) {
      config.root_pid = static_cast<uint64_t>(run.root_pid);
    }
    return config;
  }
  // fork()'s handlers (pthread_atfork, registered once per image): the parent holds the locks a
  // forked child's runtime goes on using (the line table's, the points'), so no other thread of
  // the parent holds them as it forks; in the child the runtime starts again as a follower.
  static void before_fork();
  static void after_fork_in_parent();
  static void after_fork_in_child();
  // The child's runtime, started with this (the parent's) lines, points and run.
  void follow_into_child();
  // The lines this process resolves (process_tree.cpp): the run's --fixed-line and command-line
  // progress points wherever a process has them. A root without lines of its own (a shell, a
  // build driver) coordinates the run when children are followed; without them it cannot run.
  // Fills `runner`'s line; false with `error` when profiling cannot run here (--progress needs
  // perf_event: not with the timer `sampler`).
  bool resolve_lines_of_run(SamplerKind sampler, RunnerSettings* runner, std::string* error);
  // At the root's shut-down: what no process of the run found (debug information in scope, the
  // --fixed-line, a command-line point), said once.
  void say_what_no_process_had();
  // A follower whose root has gone (killed: it could not end its experiment) ends it, so the
  // processes left do not go on paying its delays. From the profiler thread's idle calls.
  void watch_root();
  // A follower's own start-up or shut-down, which the native program does not spend (about a
  // tenth to half a millisecond in each child, on the critical path of a parent that waits for
  // it): taken out of the experiment's time as a virtual speedup takes a delay out, the calling
  // thread counting it as already paid and every other thread of the run owing it
  // (DelayProtocol::absorb_own). A parent waiting for the child is credited at its exit.
  void absorb_own_time(uint64_t since_ns);
  // Waits up to `ms` milliseconds for shut-down to finish (async-signal-safe).
  void wait_for_shutdown(int ms) const;
  // The writing half of shut-down, once the profiler thread has stopped (or is the caller).
  void finish_shutdown();
  // Counts the samples left in every thread's ring, raising the experiment's global delay total
  // (nobody pauses at exit).
  void drain_all_threads();
  // The profiler thread's report of each experiment block written or not: failures are said at
  // once, and so is the recovery.
  void note_write(bool ok, const std::string& why);
  void fail(const std::string& why) const {
    reporter_.say("error: " + why + "; running the program without profiling", true);
  }

  static std::atomic<Runtime*> active_;

  RunConfig config_;
  Reporter reporter_{config_};
  std::unique_ptr<ProgramLines> own_lines_;  // null in a forked child: its parent's are kept
  ProgramLines& lines_;
  ProgressPoints& points_;
  JoinedRun run_;
  ThreadRegistry threads_;
  CommandLinePoints command_line_points_{threads_};
  ExperimentState& experiment_{run_.run->experiment};  // the run's, shared by its processes
  ZeroedPtr<HandoffTable> own_handoffs_;               // null in a forked child, as own_lines_
  HandoffTable& handoffs_;                             // this process's own
  ZeroedPtr<FdKeys> own_fd_keys_;
  FdKeys& fd_keys_;
  AmplifySettings amplify_;
  SampleAttribution attribution_{lines_.map(), experiment_, command_line_points_};
  RealDelayEnvironment environment_{attribution_, points_};
  DelayProtocol delays_{experiment_, handoffs_, amplify_, environment_};
  BlockedTime blocked_{attribution_, delays_, experiment_};
  ProgressThreads progress_{threads_, experiment_.ledger};
  ThreadLife life_{threads_, command_line_points_, attribution_, delays_, blocked_, progress_,
                   reporter_};
  std::unique_ptr<SamplerBackend> backend_;
  ProfileWriter writer_;
  bool write_failing_ = false;  // the last experiment block could not be written
  std::unique_ptr<ExperimentRunner> runner_;
  Membership membership_{config_, reporter_, delays_};  // in a run across programs
  pthread_t profiler_thread_{};
  bool profiler_running_ = false;

  uint64_t start_ns_ = 0;  // monotonic, at start()
  uint64_t began_ns_ = 0;  // monotonic, when this process's runtime began (see the constructor)
  uint64_t shutdown_began_ns_ = 0;
  std::atomic<bool> shut_down_{false};
  std::atomic<bool> shutdown_done_{false};
  std::atomic<bool> signal_shutdown_{false};  // the profiler thread writes the final records
  pid_t pid_ = 0;
  Runtime* parent_ = nullptr;  // in a forked child: the parent's runtime (a copy, never running)
  bool root_gone_ = false;     // watch_root() ended the root's experiment
  std::string no_lines_;       // why this process has no lines in scope (empty: it has some)
};

}  // namespace coz
