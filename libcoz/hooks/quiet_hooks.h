// The hooks' fast path: what a lock, an unlock, a signal or a wait costs when nothing changed
// since the calling thread last settled its delays. Inline, so a hook reads a few thread-locals and
// one shared word (the ledger's epoch and total) and calls the real function, with no out-of-line
// call into the runtime, no ring drain and no ledger arithmetic.
//
// Why it is exact: a thread that settled at ledger word W with no lock held owes at most one
// carry (DelayProtocol::carry: a sample's worth, or one delay), or a paced remainder whose next
// piece is not due yet (DelayProtocol::take_paced; the fast path gives way to the full one once the
// hooks' clock, read every kPieceHooks hooks, passes ThreadDelays::piece_due: a piece may come up
// to that many hooks late). While the word stays W nobody's total rose and no experiment began, and
// what a thread owes at a fixed word only shrinks (its own samples and credits raise its local
// total), so every protocol call the hook would make is a no-op except two: taking the outermost
// lock notes the debt carried in (what it owes at W), and releasing or signalling publishes its
// total on the primitive (a read of the slot when it already holds as much, as it does after the
// first release in an experiment). A thread that owes nothing may also block: nothing is paid
// before, and if the word is unchanged after, no credit can apply (a word that changed meanwhile
// sends it to the full path's credit); where samples come in lumps (ExperimentState::lumpy) the
// wait also reads the clock as it begins and as it ends and notes itself among the thread's recent
// waits, as the full path does (DelayProtocol::after_block), since the credits of later lumps
// depend on it. A sample that arrives meanwhile is handled by the signal handler as it would be
// between hooks; one that raises a total changes the word, and the next hook takes the full path
// (hooks_api.h).
//
// Threads: each call acts for the calling thread, from a hook (or from the program's signal
// handler in a hook's place). Async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/fast_clock.h"
#include "experiment/experiment_state.h"
#include "experiment/handoff_table.h"
#include "threads/thread_state.h"

namespace coz::quiet_hooks {

// Depth of runtime work on this thread (hooks_api.cpp; 1 for good in the profiler's thread).
extern __thread __attribute__((tls_model("initial-exec"))) int t_inside;
// The active runtime's experiment, or nullptr (set and cleared with Runtime::active()), and its
// process's hand-off table (set before it).
extern std::atomic<ExperimentState*> g_experiment;
extern std::atomic<HandoffTable*> g_handoffs;

// A thread quiet with a paced remainder reads the clock at every this many hooks.
inline constexpr uint32_t kPieceHooks = 8;

// The calling thread's state and the experiment, when its hooks may take the fast path.
struct Quiet {
  ThreadState* thread = nullptr;
  ExperimentState* experiment = nullptr;
  explicit operator bool() const { return thread != nullptr; }
};

// The fast path's check, else an empty Quiet (the caller then takes the full path through
// hooks_api.h, which also covers "no runtime").
inline Quiet quiet() {
  ThreadState* t = t_thread_state;
  if (!t || t_inside != 0 || t->pending_selected != 0) {
    return {};
  }
  ExperimentState* e = g_experiment.load(std::memory_order_relaxed);
  if (!e || e->ledger.word() != t->quiet_word) {
    return {};
  }
  if (t->piece_due != 0 && --t->piece_hooks == 0) {
    // Quiet with a paced remainder (DelayProtocol::take_paced): every kPieceHooks-th hook reads
    // the clock, and once the next piece is due the full path pays it. (Read at every hook, the
    // clock cost a two-thread lock loop a quarter of its operations in speedup experiments.)
    t->piece_hooks = kPieceHooks;
    if (fast_clock::now() >= t->piece_due) {
      // Due: every hook takes the full path until one pays the piece and marks it quiet again
      // (one that pays nothing, an uncontended lock, must not reset the count). A signal handler
      // that marks it quiet meanwhile only costs a hook on the full path.
      t->quiet_word = kNotQuiet;
      return {};
    }
  }
  return {t, e};
}

// Whether a thread quiet before a real call still is after it (nothing raised a total meanwhile).
inline bool still_quiet(const Quiet& q) {
  return q.experiment->ledger.word() == q.thread->quiet_word && q.thread->pending_selected == 0;
}

// Whether the thread owes nothing at the quiet word. A wait then has nothing to pay before it
// and, if the word is still the same after it, nothing to be credited: the thread's total is the
// global one, which no waker's count exceeds.
inline bool owes_nothing(const Quiet& q) {
  return DelayLedger::owed_at(q.thread->quiet_word, q.thread->delays) == 0;
}

// Back from a wait on the fast path with the word unchanged (`woken`: another thread ended it).
// Holding a lock (cond_wait took it again) counts as taking it afresh, owing nothing; a timed wait
// is noted among the thread's recent waits (DelayProtocol::after_block).
inline void after_wait(const Quiet& q, bool woken) {
  ThreadState& t = *q.thread;
  if (t.block_start_ns != 0) {
    if (woken) {
      t.waits.add(t.block_start_ns, platform::monotonic_ns(), q.experiment->wait_bucket_ns());
    }
    t.block_start_ns = 0;
  }
  if (t.locks_held > 0) {
    t.lock_debt_ns = 0;
    t.lock_epoch = epoch_count::epoch(t.quiet_word);
  }
}

// About to wait on the fast path: blocked in a wait a wake credits, as DelayProtocol::before_block
// marks it (threads/progress_threads.h reads it as an experiment ends), timed where samples come
// in lumps (DelayProtocol::blocking).
inline void before_wait(const Quiet& q) {
  q.thread->block_start_ns = q.experiment->lumpy() ? platform::monotonic_ns() : 0;
  q.thread->show_blocked();
}

// A lock was taken on the fast path (DelayProtocol::lock_acquired at the quiet word).
inline void lock_acquired(ThreadState& t) {
  if (t.locks_held == 0) {
    uint64_t word = t.quiet_word;
    t.lock_debt_ns = DelayLedger::owed_at(word, t.delays);
    t.lock_epoch = epoch_count::epoch(word);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // a sample sees the debt with the lock
  }
  t.locks_held++;
}

// A lock was released on the fast path.
inline void lock_released(ThreadState& t) {
  t.lock_released();
}

// About to release or signal `key` on the fast path: publishes the thread's total
// (DelayProtocol::before_wake, whose other steps are no-ops at the quiet word).
inline void before_wake(const Quiet& q, const void* key) {
  // Under the quiet word's experiment only: a sample that moved the thread to another experiment
  // meanwhile leaves the publishing to the next hook's full path.
  uint64_t epoch = epoch_count::epoch(q.thread->quiet_word);
  if (q.thread->delays.epoch != epoch) {
    return;
  }
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_handoffs.load(std::memory_order_relaxed)->publish(key, epoch, q.thread->delays.ns);
}

}  // namespace coz::quiet_hooks
