// Sample attribution: the sampling signal, a sample's line (the in-scope line, or the innermost
// in-scope caller of code outside the scope), the selected-line count the delay protocol pays
// for, and the environment the protocol runs in.
// Threads: everything here runs in the sampled thread, most of it in its signal handler, and is
// async-signal-safe (no allocation, no locks).
#include <errno.h>
#include <time.h>

#include "own_fds.h"
#include "platform.h"
#include "real_functions.h"
#include "runtime/hooks_api.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"
#include "runtime/sample_signal.h"
#include "sample/breakpoint_counter.h"

namespace coz {

using namespace internal;

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

}  // namespace coz
