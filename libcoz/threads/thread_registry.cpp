// Registry of profiled threads (see thread_registry.h).
#include "threads/thread_registry.h"

#include "base/platform.h"

namespace coz {

ThreadState* ThreadRegistry::attach(pid_t tid, SamplerBackend* backend, std::string* error,
                                    bool scan) {
  std::unique_ptr<ThreadSampler> sampler = backend->open_thread(tid, error);
  if (!sampler) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  // Attached already? Only the start-up scan can race with a thread's own attach. The scan looks
  // at every live thread (few, at start-up); a thread attaching itself looks only at the scanned
  // states it may have been given, so attach stays O(1) however many threads are live (a walk of
  // every live thread here serialised thousands of starting threads under this lock).
  if (scan) {
    for (ThreadState* live = live_; live; live = live->next) {
      if (live->tid.load(std::memory_order_relaxed) == tid) {
        return live;
      }
    }
  } else {
    for (size_t i = 0; i < scanned_.size(); i++) {
      if (scanned_[i]->tid.load(std::memory_order_relaxed) == tid) {
        ThreadState* claimed = scanned_[i];
        scanned_.erase(scanned_.begin() + static_cast<std::ptrdiff_t>(i));
        return claimed;
      }
    }
  }
  ThreadState* s = free_;
  if (s) {
    free_ = s->next;
  } else {
    s = new ThreadState();  // pooled: never deleted
  }
  s->sampler = std::move(sampler);
  s->sampler->watch(
      ThreadWaits{&s->blocked_now, &s->in_timed_call, &s->pause_end_ns, &s->waits_begun});
  s->signal_in_flight = s->sampler->in_flight();
  s->signal_sampler = s->signal_in_flight ? s->sampler.get() : nullptr;
  s->samples = 0;
  s->delays = LocalDelays();
  s->quiet_word = kNotQuiet;
  s->next_piece_ns = s->piece_due = 0;
  s->piece_hooks = 1;
  s->pending_selected = 0;
  s->in_ledger = false;
  s->locks_held = 0;
  s->lock_debt_ns = 0;
  s->block_debt_ns = 0;
  s->paused_ns = 0;
  s->member_wake_ns = s->member_wake_word = 0;
  s->blocked_ns = 0;
  s->block_start_ns = 0;
  s->waits.clear();
  s->lumps_seen = 0;
  s->raiser_id = tid;
  s->wake_cap_epoch = kNoEpoch;
  s->selected_epoch = kNoEpoch;
  s->last_signal_ns = s->window_from_ns = platform::monotonic_ns();
  s->blocked_now.store(false, std::memory_order_relaxed);
  s->visits_base = __atomic_load_n(&s->visits.count, __ATOMIC_RELAXED);
  s->visits_base_epoch = kVisitsSinceAttach;
  s->pause_spill_ns = 0;
  s->pause_end_ns.store(0, std::memory_order_relaxed);
  s->in_timed_call.store(false, std::memory_order_relaxed);
  s->pacer.reset();
  s->arrivals_epoch = ~0ull;
  for (std::atomic<int>& fd : s->breakpoint_fds) {
    fd.store(-1);
  }
  s->draining.store(false, std::memory_order_relaxed);
  s->stack_lo = s->stack_hi = 0;  // a previous thread's: the timer sampler reads the stack by them
  s->tid.store(tid, std::memory_order_release);
  s->scanned = scan;
  if (scan) {
    scanned_.push_back(s);
  }
  s->prev = nullptr;
  s->next = live_;
  if (live_) {
    live_->prev = s;
  }
  live_ = s;
  attached_.fetch_add(1, std::memory_order_relaxed);
  publish_fd(s->sampler->signal_token(), s);
  s->sampler->enable();
  return s;
}

void ThreadRegistry::detach(ThreadState* state, SampleVisitor visit, void* context) {
  // Closed after the lock is released: munmap of the ring (a TLB shoot-down across the CPUs
  // running this process) and the perf_event release are the slow part of a thread's exit, and
  // under the lock every other exiting thread waited for them. Unpublished under the lock, the
  // descriptor cannot be handed to a new thread (or looked up by by_fd) before it is closed.
  std::unique_ptr<ThreadSampler> closing;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    state->sampler->disable();
    // No one else can be draining: shut-down drains under mutex_, and the owner's signal handler
    // is blocked by the caller. Take the flag unconditionally.
    state->draining.store(true, std::memory_order_relaxed);
    if (visit) {
      state->samples += state->sampler->drain(visit, context);
    }
    publish_fd(state->sampler->signal_token(), nullptr);
    state->tid.store(0, std::memory_order_release);
    lost_ += state->sampler->lost();
    state->signal_in_flight = nullptr;
    state->signal_sampler = nullptr;
    closing = std::move(state->sampler);
    state->end_drain();
    if (state->scanned) {
      for (size_t i = 0; i < scanned_.size(); i++) {
        if (scanned_[i] == state) {
          scanned_.erase(scanned_.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
    }
    (state->prev ? state->prev->next : live_) = state->next;
    if (state->next) {
      state->next->prev = state->prev;
    }
    state->prev = nullptr;
    state->next = free_;
    free_ = state;
  }
}

uint64_t ThreadRegistry::samples_lost() {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t lost = lost_;
  for (ThreadState* s = live_; s; s = s->next) {
    lost += s->sampler->lost();
  }
  return lost;
}

ThreadState* ThreadRegistry::by_fd(int fd) const {
  if (fd < 0 || static_cast<size_t>(fd) >= kChunk * kChunks) {
    return nullptr;
  }
  Chunk* chunk = chunks_[fd / kChunk].load(std::memory_order_acquire);
  return chunk ? (*chunk)[fd % kChunk].load(std::memory_order_acquire) : nullptr;
}

void ThreadRegistry::publish_fd(int fd, ThreadState* state) {
  if (fd < 0 || static_cast<size_t>(fd) >= kChunk * kChunks) {
    return;
  }
  std::atomic<Chunk*>& slot = chunks_[fd / kChunk];
  Chunk* chunk = slot.load(std::memory_order_acquire);
  if (!chunk) {
    chunk = reinterpret_cast<Chunk*>(new std::atomic<ThreadState*>[kChunk]());
    slot.store(chunk, std::memory_order_release);  // under mutex_: no racing allocator
  }
  (*chunk)[fd % kChunk].store(state, std::memory_order_release);
}

}  // namespace coz
