// The thread life cycle: attaching threads (the first one at start-up, those that existed before
// the runtime, each new one as it starts), counting the program's threads, and detaching each at
// its exit, after it has paid its delays and handed its count to its joiner.
// Threads: start() and attach_existing() at start-up; on_thread_start()/on_thread_exit() in the
// thread concerned; created()/gone() in any program thread. None from a signal handler.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "attribution/command_line_points.h"
#include "attribution/sample_attribution.h"
#include "delays/blocked_time.h"
#include "delays/delay_protocol.h"
#include "experiment/delay_ledger.h"
#include "runtime/reporter.h"
#include "sample/sampler.h"
#include "threads/progress_threads.h"
#include "threads/thread_registry.h"

namespace coz {

class ThreadLife {
 public:
  ThreadLife(ThreadRegistry& threads, CommandLinePoints& points, SampleAttribution& attribution,
             DelayProtocol& delays, BlockedTime& blocked, ProgressThreads& progress,
             const Reporter& reporter)
      : threads_(threads),
        points_(points),
        attribution_(attribution),
        delays_(delays),
        blocked_(blocked),
        progress_(progress),
        reporter_(reporter) {}
  ThreadLife(const ThreadLife&) = delete;
  ThreadLife& operator=(const ThreadLife&) = delete;

  // The key an exiting thread publishes its delay count under, for its joiner.
  static const void* handoff_key(pthread_t thread) { return reinterpret_cast<const void*>(thread); }

  // Samples the calling (first) thread with `backend`; each sampled thread's exit then runs
  // `at_exit` (a pthread key destructor, given the thread's state), and `last_gone` runs when
  // the last program thread has gone. False with `error` when the thread cannot be sampled or
  // its --progress breakpoints cannot be set; nothing is left armed then.
  bool start(SamplerBackend* backend, void (*at_exit)(void*), std::function<void()> last_gone,
             std::string* error);
  // Attaches the threads started before the runtime (by other libraries' constructors).
  void attach_existing();
  // In a forked child, for the parent's runtime: the calling thread's state is the parent's, so
  // its exit must not detach it.
  void forget_calling_thread() { pthread_setspecific(key_, nullptr); }
  // In a forked child: the parent's key (its destructor is the same), not a new one each
  // generation (keys run out at 1024).
  void reuse_key(const ThreadLife& parent) {
    key_ = parent.key_;
    have_key_ = true;
  }

  // In a new thread, first thing: `inherited` is its creator's delay count (delays the creator
  // took also delayed the creation).
  void on_thread_start(const LocalDelays& inherited);
  // In an exiting thread (its key destructor).
  void on_thread_exit(ThreadState& state);
  // A program thread is about to be created / failed to start or has exited.
  void created() { program_threads_.fetch_add(1); }
  void gone();

  // Threads that could not be sampled, and why the first could not.
  uint64_t unsampled(std::string* reason);

 private:
  void note_unsampled(const std::string& error);

  ThreadRegistry& threads_;
  CommandLinePoints& points_;
  SampleAttribution& attribution_;
  DelayProtocol& delays_;
  BlockedTime& blocked_;
  ProgressThreads& progress_;
  const Reporter& reporter_;
  SamplerBackend* backend_ = nullptr;
  pthread_key_t key_{};  // its destructor detaches an exiting thread
  bool have_key_ = false;
  std::function<void()> last_gone_;
  // Program threads being sampled; when the last one exits (main called pthread_exit), the
  // runtime shuts down so its own profiler thread does not keep the process alive.
  std::atomic<int> program_threads_{0};
  std::atomic<uint64_t> unsampled_{0};  // threads whose sampler could not be opened
  std::mutex unsampled_mutex_;
  std::string unsampled_reason_;  // the first such failure
};

}  // namespace coz
