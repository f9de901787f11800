// The registry of live threads and their states (thread_state.h).
//
// ThreadState objects come from a pool and are recycled, never freed, so a signal handler that
// reads a stale pointer still reads valid memory (it then sees a different tid and backs off).
// attach()/detach() lock a mutex and allocate: call them at thread start and exit, never from a
// signal handler. Both are O(1) under the lock (no walk of the live threads), so a thousand
// threads starting or exiting at once do not queue behind each other. by_fd() is lock-free and
// async-signal-safe. There is no fixed thread limit: the fd index grows in chunks.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sample/sampler.h"
#include "threads/thread_state.h"

namespace coz {

class ThreadRegistry {
 public:
  ThreadRegistry() = default;
  ThreadRegistry(const ThreadRegistry&) = delete;
  ThreadRegistry& operator=(const ThreadRegistry&) = delete;

  // Opens a sampler for `tid` with `backend` and registers it; a thread attached already keeps
  // its state. nullptr and `error` on failure. `scan` is for the start-up scan of threads that
  // existed before the runtime: only those can be attached twice (by the scan and by the thread
  // itself), so only they are looked up by tid, and a thread attaching itself checks just them.
  ThreadState* attach(pid_t tid, SamplerBackend* backend, std::string* error, bool scan = false);
  // Stops the thread's sampler, drains what is left into `visit`, and recycles the state; the
  // sampler's descriptor and ring are released after the lock. The caller must have blocked the
  // sampling signal in the thread being detached.
  void detach(ThreadState* state, SampleVisitor visit, void* context);

  // The live thread whose sampler signals on `fd`, or nullptr. Async-signal-safe.
  ThreadState* by_fd(int fd) const;

  // Calls `visit` on every live thread under the registry lock.
  template <typename F>
  void for_each_live(F&& visit) {
    for_each_live(visit, [] {});
  }
  // The same, then `then()` before the lock is released.
  template <typename F, typename G>
  void for_each_live(F&& visit, G&& then) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (ThreadState* s = live_; s; s = s->next) {
      visit(*s);
    }
    then();
  }
  // Runs `f` under the registry lock.
  template <typename F>
  void locked(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    f();
  }
  uint64_t total_attached() const { return attached_.load(std::memory_order_relaxed); }
  // Samples the kernel dropped (a full ring), over every thread, live or gone.
  uint64_t samples_lost();

 private:
  static constexpr size_t kChunk = 1024;
  static constexpr size_t kChunks = 1024;  // descriptors up to ~1M
  using Chunk = std::atomic<ThreadState*>[kChunk];

  void publish_fd(int fd, ThreadState* state);

  mutable std::mutex mutex_;
  ThreadState* live_ = nullptr;
  ThreadState* free_ = nullptr;
  std::vector<ThreadState*> scanned_;  // attached by the scan, not yet claimed by their thread
  std::atomic<uint64_t> attached_{0};
  uint64_t lost_ = 0;  // samples lost by detached threads (under mutex_)
  std::atomic<Chunk*> chunks_[kChunks] = {};
};

}  // namespace coz
