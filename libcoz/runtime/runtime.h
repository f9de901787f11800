// The runtime: the one object that owns the line map, the sampler backend, the thread registry,
// the progress points and the profile writer, and runs the profiler thread. Hooks and the
// signal handler reach it through Runtime::active(), a single atomic pointer; there is no other
// global state.
//
// Threading: start() runs once, in the library constructor. on_thread_start()/on_thread_exit()
// run in the thread concerned. The profiler thread maps libraries loaded later. handle_signal()
// runs in signal context and only drains samples and looks up lines. shutdown() runs once, in
// the thread that exits the process; after it, active() returns nullptr.
#pragma once

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "config/run_config.h"
#include "experiment/experiment_state.h"
#include "experiment/in_flight.h"
#include "line/line_map.h"
#include "line/line_table.h"
#include "line/scope.h"
#include "record/profile_writer.h"
#include "runtime/experiment_runner.h"
#include "runtime/progress_points.h"
#include "runtime/thread_registry.h"
#include "sample/sampler.h"

namespace coz {

class Runtime {
 public:
  // `points` outlives the runtime: programs may look counters up before it starts.
  Runtime(RunConfig config, ProgressPoints& points);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The running runtime, or nullptr before start-up finished, after shut-down, or when profiling
  // is off in this process.
  static Runtime* active() { return active_.load(std::memory_order_acquire); }

  // Builds the line map, starts sampling in every existing thread and the profiler thread.
  // Returns false (after telling the user why, if this is the root process) when profiling
  // cannot run; the program then runs unprofiled.
  bool start();
  // Writes the final records and stops profiling. Later callers wait (briefly) until the first
  // has finished, so a second exit path cannot end the process mid-write.
  void shutdown();
  // From a signal handler: asks the profiler thread to write the final records and waits for
  // it (bounded). Async-signal-safe.
  void shutdown_from_signal();
  // False in a vfork child, which shares this process's memory but is not it.
  bool owns_this_process() const { return getpid() == pid_; }

  // `inherited` is the creating thread's delay count: delays it took also delayed the creation.
  void on_thread_start(const LocalDelays& inherited);
  void on_thread_exit(ThreadState* state);
  // A program thread is about to be created / failed to start or has exited.
  void thread_created();
  void thread_gone();
  // The calling thread's delay count, to hand to a thread it creates.
  LocalDelays current_delays() const;

  // Blocking and waking (section 5.2.5.4, with the handoff described in handoff_table.h).
  // before_wake(key): about to release or signal `key`; publishes this thread's delay count.
  // after_release(): pays what this thread owes, now that it holds nothing others wait for.
  // after_block(key, woken): back from waiting on `key`; if another thread released it, credits
  // this thread up to the count that thread published (a timed-out wait earns nothing).
  void before_wake(const void* key);
  // The key an exiting thread publishes under for its joiner.
  static const void* thread_handoff_key(pthread_t thread) {
    return reinterpret_cast<const void*>(thread);
  }
  void after_release() { catch_up(); }
  // Lock bookkeeping: a thread never pauses while it holds a lock (others would wait on it in
  // real time); it pays once it releases the last one.
  void lock_acquired();
  void lock_released();
  void after_block(const void* key, bool woken);
  // Pays every owed delay now (thread exit, COZ_PRE_BLOCK/COZ_CATCH_UP).
  void catch_up();
  // As catch_up(), and again for what others added meanwhile, until nothing is owed (after a
  // sleep, before the thread carries on).
  void catch_up_fully();
  // About to block: pays what is owed and notes the time (an arrival thread's blocked time is
  // not part of its own inter-arrival period).
  void before_block();
  // COZ_ARRIVAL's first visit in the calling thread: a counter of that thread's own.
  Counter* new_arrival_counter(const char* name);
  // Coz's credit rule, up to the global count, for callers that cannot name the waker
  // (COZ_POST_BLOCK).
  void post_block(bool woken);
  void handle_signal(int fd);
  // Whether `fd` is (or was registered as) a thread's sampler descriptor. Async-signal-safe.
  bool is_sampler(int fd) const { return threads_.by_fd(fd) != nullptr; }

  const RunConfig& config() const { return config_; }
  pthread_key_t thread_key() const { return thread_key_; }

 private:
  static void* profiler_main(void* self);
  static void count_sample(const Sample& sample, void* context);
  // Counts the samples in the thread's ring (its selected-line ones into pending_selected).
  // False while another thread (shut-down) drains it.
  bool collect_own_samples(ThreadState* state);
  // The global delay total rose by `ns`: every request in flight spends that much less time in
  // the sped-up program (for Little's law). Async-signal-safe.
  void delay_inserted(uint64_t ns);
  // The delay protocol's view of this runtime: the clock, real sleeps, sample collection.
  class Environment : public DelayEnvironment {
   public:
    explicit Environment(Runtime& runtime) : runtime_(runtime) {}
    uint64_t now_ns() override;
    void sleep_ns(uint64_t ns) override;
    bool collect(ThreadDelays& t) override;
    void inserted(uint64_t ns) override { runtime_.delay_inserted(ns); }

   private:
    Runtime& runtime_;
  };
  void add_objects_in_scope();
  void check_for_new_objects();
  void drain_all_threads();
  // Waits up to `ms` milliseconds for shut-down to finish (async-signal-safe).
  void wait_for_shutdown(int ms) const;
  // The writing half of shut-down, once the profiler thread has stopped (or is the caller).
  void finish_shutdown();
  void write_final_records();
  // The profiler thread's report of each experiment block written or not: failures are said at
  // once, and so is the recovery.
  void note_write(bool ok, const std::string& why);
  void attach_existing_threads();
  void report(const std::string& message, bool always) const;
  // The line FILE:LINE names, or nullptr after telling the user why (`option` names the source).
  SourceLine* resolve_line(const std::string& spec, const char* option);
  // Command-line progress points (--progress, --sampled-progress): resolved at start-up.
  bool resolve_command_line_points();
  bool open_breakpoints(ThreadState* state, pid_t tid, std::string* error);
  void close_breakpoints(ThreadState* state);
  // Sets each breakpoint point's counter to its executions over every thread, live or gone.
  void refresh_breakpoint_counts();
  void note_unsampled_thread(const std::string& error);

  static std::atomic<Runtime*> active_;

  RunConfig config_;
  Scope scope_;
  LineTable lines_;
  LineMap map_;
  ProgressPoints& points_;
  ThreadRegistry threads_;
  std::unique_ptr<SamplerBackend> backend_;
  ProfileWriter writer_;
  bool write_failing_ = false;       // the last experiment block could not be written
  std::mutex objects_mutex_;         // serialises adding objects to map_
  uint64_t objects_generation_ = 0;  // loaded_objects_generation() when last scanned

  pthread_key_t thread_key_{};
  pthread_t profiler_thread_{};
  bool profiler_running_ = false;
  ExperimentState experiment_;
  std::unique_ptr<ExperimentRunner> runner_;
  AmplifySettings amplify_;
  Environment environment_{*this};
  DelayProtocol delays_{experiment_, amplify_, environment_};
  struct Breakpoint {
    uintptr_t address = 0;
    Counter* counter = nullptr;
    std::atomic<uint64_t> retired{0};  // counts of threads that have exited
  };
  Breakpoint breakpoints_[kMaxBreakpoints];
  size_t breakpoints_count_ = 0;
  struct SampledPoint {
    SourceLine* line;
    Counter* counter;
  };
  SampledPoint sampled_points_[kMaxSampledPoints] = {};  // fixed before sampling starts
  size_t sampled_points_count_ = 0;

  uint64_t start_ns_ = 0;  // monotonic, at start()
  uint64_t ready_ns_ = 0;  // monotonic, when the profiler thread began running
  std::atomic<uint64_t> total_samples_{0};
  std::atomic<uint64_t> in_scope_samples_{0};
  std::atomic<uint64_t> unsampled_threads_{0};  // threads whose sampler could not be opened
  std::mutex unsampled_mutex_;
  std::string unsampled_reason_;  // the first such failure
  std::atomic<bool> shut_down_{false};
  std::atomic<bool> shutdown_done_{false};
  std::atomic<bool> signal_shutdown_{false};  // the profiler thread writes the final records
  pid_t pid_ = 0;
  // Program threads being sampled; when the last one exits (main called pthread_exit), the
  // runtime shuts down so its own profiler thread does not keep the process alive.
  std::atomic<int> program_threads_{0};
};

}  // namespace coz
