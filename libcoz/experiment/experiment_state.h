// What the signal path needs to know about the running experiment, and what it reports back.
// One per run, shared by every profiled process of it (runtime/shared_run.h places it in memory
// they all map): the root process's profiler thread writes it, sample processing in every thread
// of every process reads and updates it. Lock-free, address-free (no pointers: a line is named by
// its key, SourceLine::key) and async-signal-safe. What is one process's own (the hand-off table
// of its locks) lives beside it, in the process.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include "experiment/delay_ledger.h"
#include "experiment/recent_lumps.h"
#include "experiment/relayed_raises.h"
#include "line/line_table.h"

namespace coz {

// The line a sample offers the runner while it waits for one (ExperimentState::want_line),
// written by the first sample to claim it, in whichever process, and taken by the runner.
class LineOffer {
 public:
  static constexpr size_t kMaxFile = 4096;  // PATH_MAX: a longer name is cut (the key is whole)

  // From a signal handler: offers `line` unless another offer is pending. Async-signal-safe.
  void put(const SourceLine& line) {
    if (!claim()) {
      return;
    }
    key_ = line.key;
    number_ = line.line;
    size_t n = line.file->size() < kMaxFile - 1 ? line.file->size() : kMaxFile - 1;
    memcpy(file_, line.file->data(), n);
    file_[n] = '\0';
    state_.store(kReady, std::memory_order_release);
  }
  // The runner: takes a ready offer (its key and `file:line` name). An offer left half written
  // (its process died while writing) is dropped after `stale_polls` calls that found it so.
  bool take(uint64_t* key, std::string* name, int stale_polls = 1000) {
    uint32_t s = state_.load(std::memory_order_acquire);
    if (s == kWriting && ++stale_ >= stale_polls) {
      state_.store(kEmpty, std::memory_order_release);
    }
    if (s != kReady) {
      return false;
    }
    stale_ = 0;
    *key = key_;
    *name = std::string(file_) + ":" + std::to_string(number_);
    state_.store(kEmpty, std::memory_order_release);
    return true;
  }
  // A writer's first step: claims the empty offer for writing (put() then fills and publishes it;
  // a writer that dies here leaves it half written). False when an offer is pending.
  bool claim() {
    uint32_t empty = kEmpty;
    return state_.compare_exchange_strong(empty, kWriting, std::memory_order_acquire);
  }
  // Whether an offer is there or being written.
  bool pending() const { return state_.load(std::memory_order_acquire) != kEmpty; }
  // Drops a pending offer (an offer racing the start of an experiment).
  void clear() {
    uint32_t ready = kReady;
    state_.compare_exchange_strong(ready, kEmpty, std::memory_order_acq_rel);
  }

 private:
  enum : uint32_t { kEmpty = 0, kWriting = 1, kReady = 2 };
  std::atomic<uint32_t> state_{kEmpty};
  int stale_ = 0;  // the runner's count of polls that found the offer half written
  uint64_t key_ = 0;
  uint32_t number_ = 0;
  char file_[kMaxFile] = {};
};

struct ExperimentState {
  DelayLedger ledger;
  std::atomic<uint64_t> selected{0};          // the key of the line being sped up, or 0
  std::atomic<uint64_t> selected_samples{0};  // samples in it during this experiment
  std::atomic<uint64_t> started_ns{0};        // CLOCK_MONOTONIC as this experiment began
  std::atomic<bool> want_line{false};         // the profiler waits for a line to test
  // When a thread of this process tree last raised the delay total (CLOCK_MONOTONIC), and the
  // raises other members made (a run across programs: profiler/coordinated_experiments.cpp).
  std::atomic<uint64_t> last_raise_ns{0};
  RelayedRaises relayed;
  LineOffer offered;  // the first in-scope line sampled while it waits
  // --fixed-line as the first process that has the line resolved it, for a root that has not
  // (a shell or a build driver that starts the programs with the lines).
  LineOffer fixed;
  // Load amplification in this experiment: the speedup arrivals earned, and for the load
  // achieved, each arrival's own period (summed over arrivals whose thread's period is known)
  // and the number of arrival threads.
  std::atomic<uint64_t> arrival_speedup_ns{0};
  std::atomic<uint64_t> arrival_period_sum_ns{0};
  std::atomic<uint64_t> arrivals_with_period{0};
  std::atomic<uint64_t> arrival_threads{0};
  // Sampling periods the last selected-line sample stood for (the timer sampler's signals come at
  // the scheduler's tick, 4 ms here: about 4; perf's, 1): one sample's delay is this many delay
  // sizes at once (delays/delay_protocol.h: what a thread that runs the line may carry).
  std::atomic<uint32_t> sample_periods{1};
  // A selected-line sample of the run stood for several periods (lumpy()).
  std::atomic<bool> lumpy_samples{false};
  // The sampling period (a delay is this long at 100%), or 0: threads pay at most one delay per
  // period at samples and hooks (delays/delay_protocol.h: pauses in pieces); 0 pays at once.
  std::atomic<uint64_t> period_ns{0};
  // Selected-line samples of several periods, with when each raised the total: a wake credits
  // only the periods that fall within the wait (delays/delay_protocol.h).
  RecentLumps lumps;

  // Whether a selected-line sample of the run stood for several periods, and threads pay in
  // pieces: waits are then timed, for the credit of their wakes (RecentLumps). Once set, for the
  // rest of the run (the last sample's weight comes and goes).
  bool lumpy() const {
    return lumpy_samples.load(std::memory_order_relaxed) &&
           period_ns.load(std::memory_order_relaxed) != 0;
  }

  // The delay the experiment's selected-line samples raised, and how much of it by threads that
  // held a lock (a mutex or read-write lock) as they raised it.
  std::atomic<uint64_t> raised_ns{0};
  std::atomic<uint64_t> raised_in_lock_ns{0};
  void note_raise(uint64_t ns, bool in_lock) {
    raised_ns.fetch_add(ns, std::memory_order_relaxed);
    if (in_lock) {
      raised_in_lock_ns.fetch_add(ns, std::memory_order_relaxed);
    }
  }
  // Whether the selected line runs mostly outside any lock (most of its delay raised by threads
  // holding none): a wait for a lock is then not a wait for the line (DelayProtocol::
  // before_lock_block).
  bool line_outside_locks() const {
    uint64_t raised = raised_ns.load(std::memory_order_relaxed);
    return raised != 0 && 2 * raised_in_lock_ns.load(std::memory_order_relaxed) < raised;
  }
  void reset_raises() {
    raised_ns.store(0, std::memory_order_relaxed);
    raised_in_lock_ns.store(0, std::memory_order_relaxed);
  }

  // The length of a bucket of a thread's recent waits (threads/recent_waits.h).
  uint64_t wait_bucket_ns() const { return period_ns.load(std::memory_order_relaxed) / 4; }

  void reset_arrivals() {
    arrival_speedup_ns.store(0, std::memory_order_relaxed);
    arrival_period_sum_ns.store(0, std::memory_order_relaxed);
    arrivals_with_period.store(0, std::memory_order_relaxed);
    arrival_threads.store(0, std::memory_order_relaxed);
  }

  // Whether a sample in `line` is in the selected line.
  bool is_selected(const SourceLine* line) const {
    uint64_t key = selected.load(std::memory_order_relaxed);
    return key != 0 && line && line->key == key;
  }

  // Called for every in-scope sample; returns true if it hit the selected line.
  bool on_sample(const SourceLine* line) {
    if (is_selected(line)) {
      selected_samples.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    if (line && want_line.load(std::memory_order_relaxed)) {
      offered.put(*line);
    }
    return false;
  }
};

}  // namespace coz
