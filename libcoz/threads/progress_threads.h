// The threads that make an experiment's progress, and the delays each took: what
// experiment/progress_delays.h weighs. Each thread counts its own visits (coz.h's per-thread
// counter, ThreadState::visits); as an experiment begins each live thread's count is its base,
// as it ends each thread's visits since then go with the delays it took: its local total, or,
// blocked in a wait a wake credits, the global total less what it owed going in (its wake would
// credit it that much). Pauses count as far as they fall in the experiment: the rest of a pause
// still going at the end is left out, and the rest of one from before, still going at the
// start, counts in. A thread that exits during the experiment leaves its part behind.
//
// Threading: begin() and end() in the profiler thread; departed() in the exiting thread (after
// it paid in full). A thread's delays are its own to write: they are read here with relaxed
// atomic loads, a moment's staleness at most.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "experiment/delay_ledger.h"
#include "experiment/progress_delays.h"
#include "threads/thread_registry.h"

namespace coz {

class ProgressThreads {
 public:
  ProgressThreads(ThreadRegistry& threads, const DelayLedger& ledger)
      : threads_(threads), ledger_(ledger) {}

  // The experiment the ledger has just begun: every live thread's visits so far are its base.
  void begin();
  // The calling thread is leaving: its part of the open experiment stays.
  void departed(ThreadState& t);
  // The experiment ending (before the ledger ends it): each thread's part, live or gone.
  std::vector<ProgressThread> end();

  // One thread's visits in the experiment of `epoch` and the delays it took there, with the
  // ledger's total `global_ns`, at `now_ns`: for end() and departed().
  static ProgressThread part_of(const ThreadState& t, uint64_t epoch, uint64_t global_ns,
                                uint64_t now_ns);

 private:
  ThreadRegistry& threads_;
  const DelayLedger& ledger_;
  // The departed part, and the threads' visit bases (begin() and departed() write them); taken
  // before the registry's lock, never after it.
  std::mutex mutex_;
  uint64_t departed_epoch_ = ~0ull;
  uint64_t departed_visits_ = 0;
  double departed_weighted_ = 0;  // visits x delays taken, over the threads that left
};

}  // namespace coz
