// What the signal path needs to know about the running experiment, and what it reports back.
// Written by the profiler thread, read and updated by sample processing in every thread; all
// lock-free and async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "experiment/delay_ledger.h"
#include "experiment/handoff_table.h"
#include "line/line_table.h"

namespace coz {

struct ExperimentState {
  DelayLedger ledger;
  HandoffTable handoffs;
  std::atomic<SourceLine*> selected{nullptr};  // the line being sped up, or null
  std::atomic<uint64_t> selected_samples{0};   // samples in it during this experiment
  std::atomic<uint64_t> started_ns{0};         // CLOCK_MONOTONIC as this experiment began
  std::atomic<bool> want_line{false};          // the profiler waits for a line to test
  std::atomic<SourceLine*> offered{nullptr};   // the first in-scope line sampled while it waits
  // Load amplification in this experiment: the speedup arrivals earned, and for the load
  // achieved, each arrival's own period (summed over arrivals whose thread's period is known)
  // and the number of arrival threads.
  std::atomic<uint64_t> arrival_speedup_ns{0};
  std::atomic<uint64_t> arrival_period_sum_ns{0};
  std::atomic<uint64_t> arrivals_with_period{0};
  std::atomic<uint64_t> arrival_threads{0};

  void reset_arrivals() {
    arrival_speedup_ns.store(0, std::memory_order_relaxed);
    arrival_period_sum_ns.store(0, std::memory_order_relaxed);
    arrivals_with_period.store(0, std::memory_order_relaxed);
    arrival_threads.store(0, std::memory_order_relaxed);
  }

  // Called for every in-scope sample; returns true if it hit the selected line.
  bool on_sample(SourceLine* line) {
    if (line == selected.load(std::memory_order_relaxed) && line) {
      selected_samples.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    if (want_line.load(std::memory_order_relaxed)) {
      SourceLine* none = nullptr;
      offered.compare_exchange_strong(none, line, std::memory_order_acq_rel);
    }
    return false;
  }
};

}  // namespace coz
