// Command-line progress points: --progress FILE:LINE counts executions with a hardware
// breakpoint in every thread; --sampled-progress FILE:LINE counts the line's samples.
// Threads: resolve() at start-up, before any thread is sampled; open()/close() by each thread
// for itself (and the start-up scan for threads that existed before it); refresh() by the
// profiler thread; on_sample() from signal handlers (async-signal-safe).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "config/run_config.h"
#include "line/line_map.h"
#include "line/line_table.h"
#include "runtime/progress_points.h"
#include "runtime/thread_registry.h"

namespace coz {

class CommandLinePoints {
 public:
  explicit CommandLinePoints(ThreadRegistry& threads) : threads_(threads) {}
  CommandLinePoints(const CommandLinePoints&) = delete;
  CommandLinePoints& operator=(const CommandLinePoints&) = delete;

  // The line FILE:LINE names, or nullptr with `error` saying why (`option` names the source).
  static SourceLine* resolve_line(const LineTable& lines, const std::string& spec,
                                  const char* option, std::string* error);
  // Resolves the config's points to lines and counters. False with `error` when a line cannot
  // be found. validate() (run_config.h) has refused more points than the tables hold.
  bool resolve(const RunConfig& config, const LineTable& lines, const LineMap& map,
               ProgressPoints& points, std::string* error);

  // Opens the breakpoint counters for thread `tid`, whose state is `state`. False with `error`
  // when one cannot be set.
  bool open(ThreadState& state, pid_t tid, std::string* error);
  // Closes them, keeping their counts.
  void close(ThreadState& state);
  // Sets each breakpoint point's counter to its executions over every thread, live or gone.
  void refresh();
  // A sample in `line`: counts it for the --sampled-progress points on that line.
  void on_sample(const SourceLine* line) const {
    for (size_t i = 0; i < sampled_count_; i++) {
      if (sampled_[i].line == line) {
        __atomic_add_fetch(&sampled_[i].counter->count, 1, __ATOMIC_RELAXED);
      }
    }
  }

 private:
  struct Breakpoint {
    uintptr_t address = 0;
    Counter* counter = nullptr;
    std::atomic<uint64_t> retired{0};  // counts of threads that have exited
  };
  struct SampledPoint {
    const SourceLine* line;
    Counter* counter;
  };

  ThreadRegistry& threads_;
  Breakpoint breakpoints_[kMaxBreakpointPoints];
  size_t breakpoints_count_ = 0;
  SampledPoint sampled_[kMaxSampledPoints] = {};  // fixed before sampling starts
  size_t sampled_count_ = 0;
};

}  // namespace coz
