// Sample attribution: a sample's line (the in-scope line, or the innermost in-scope caller of
// code outside the scope), its counts (the line's samples, --sampled-progress points, the
// experiment's selected-line samples), and the selected-line count a thread's delays are paid
// for.
// Threads: collect() and drain() run in the sampled thread (its signal handler or its hooks, or
// at its exit), or at shut-down for every thread; all async-signal-safe (no allocation, no
// locks). The caller owns the thread's drain (ThreadState::draining) around drain().
#pragma once

#include <atomic>
#include <cstdint>

#include "attribution/command_line_points.h"
#include "experiment/experiment_state.h"
#include "line/line_map.h"
#include "sample/sampler.h"
#include "threads/thread_state.h"

namespace coz {

class SampleAttribution {
 public:
  SampleAttribution(const LineMap& map, ExperimentState& experiment,
                    const CommandLinePoints& points)
      : map_(map), experiment_(experiment), points_(points) {}
  SampleAttribution(const SampleAttribution&) = delete;
  SampleAttribution& operator=(const SampleAttribution&) = delete;

  // Counts the samples in the calling thread's ring, its selected-line ones into
  // `t.pending_selected`. False while another thread (shut-down) drains it.
  bool collect(ThreadState& t);
  // Counts what is in `t`'s ring; returns its selected-line samples.
  uint64_t drain(ThreadState& t);

  // What a drain carries through ThreadRegistry::detach (a SampleVisitor context).
  struct Tally {
    SampleAttribution* self;
    uint64_t selected = 0;  // samples in the selected line
  };
  // A SampleVisitor over a Tally.
  static void count(const Sample& sample, void* tally);
  // `n` blocked samples of a wait whose call site is `at.ip` (stack words above the hook's frame,
  // no callchain): counted for the line (offered for an experiment as a sample is), `n_inside` of
  // them (those in the current experiment) as the selected line's. True if the line is the
  // selected one.
  bool count_blocked(const Sample& at, uint64_t n, uint64_t n_inside);

  uint64_t total_samples() const { return total_.load(std::memory_order_relaxed); }
  uint64_t in_scope_samples() const { return in_scope_.load(std::memory_order_relaxed); }

 private:
  // The sample's line, or the innermost in-scope caller's; nullptr when none is in scope.
  const AddressRange* find_line(const Sample& sample) const;

  const LineMap& map_;
  ExperimentState& experiment_;
  const CommandLinePoints& points_;
  std::atomic<uint64_t> total_{0};
  std::atomic<uint64_t> in_scope_{0};
};

}  // namespace coz
