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
#include "points/progress_points.h"
#include "threads/thread_registry.h"

namespace coz {

class CommandLinePoints {
 public:
  explicit CommandLinePoints(ThreadRegistry& threads) : threads_(threads) {}
  CommandLinePoints(const CommandLinePoints&) = delete;
  CommandLinePoints& operator=(const CommandLinePoints&) = delete;

  // The line FILE:LINE names, or nullptr with `error` saying why (`option` names the source);
  // then `*elsewhere` (if given) says whether no line of the table is in FILE at all, so another
  // program of the run may have it.
  static SourceLine* resolve_line(const LineTable& lines, const std::string& spec,
                                  const char* option, std::string* error,
                                  bool* elsewhere = nullptr);
  // The bits of SharedRun::resolved: --fixed-line, then each --progress point, then each
  // --sampled-progress point, by its place on the command line.
  static constexpr uint32_t kFixedLineBit = 1;
  static constexpr uint32_t breakpoint_bit(size_t i) { return 2u << i; }
  static constexpr uint32_t sampled_bit(size_t i) { return (2u << kMaxBreakpointPoints) << i; }
  // What resolve() does with a point whose line is not found here.
  enum class Missing {
    kError,      // an error (the run's only process)
    kElsewhere,  // skipped if its file is none of this program's (another process may have it)
    kSkip,       // skipped (a follower: the root says at the end what no process found)
  };
  // Resolves the config's points to lines and counters (counted across the run's processes once
  // `points` is attached to the run's), handling a line not found as `missing` says (an error in
  // `error`). Sets the bits of `found` (SharedRun::resolved) for the points resolved.
  // validate() (run_config.h) has refused more points than the tables hold.
  bool resolve(const RunConfig& config, const LineTable& lines, const LineMap& map,
               ProgressPoints& points, Missing missing, uint32_t* found, std::string* error);

  // Opens the breakpoint counters for thread `tid`, whose state is `state`. False with `error`
  // when one cannot be set.
  bool open(ThreadState& state, pid_t tid, std::string* error);
  // Closes them, keeping their counts.
  void close(ThreadState& state);
  // Adds to each breakpoint point's counter the executions since the last call, over every
  // thread of this process, live or gone (so the processes of a run add up).
  void refresh();
  bool any_breakpoints() const { return breakpoints_count_ > 0; }
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
    uint64_t published = 0;            // of the total, added to the counter (refresh)
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
