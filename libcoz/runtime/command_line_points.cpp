// Command-line progress points: --progress FILE:LINE counts executions with a hardware
// breakpoint in every thread; --sampled-progress FILE:LINE counts the line's samples.
// Threads: resolved at start-up; breakpoints are opened and closed by each thread for itself and
// totalled by the profiler thread.
#include <string>

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

SourceLine* Runtime::resolve_line(const std::string& spec, const char* option) {
  size_t colon = spec.rfind(':');
  bool ambiguous = false;
  SourceLine* line =
      colon == std::string::npos
          ? nullptr
          : lines_.find(spec.substr(0, colon),
                        static_cast<uint32_t>(atoi(spec.c_str() + colon + 1)), &ambiguous);
  if (!line) {
    report(
        std::string("error: ") + option + " " + spec +
            (ambiguous ? " names more than one file; give more of the path"
                       : " has no code in scope; pick a line that the compiler emitted code for") +
            "; running the program without profiling",
        true);
  }
  return line;
}

bool Runtime::resolve_command_line_points() {
  if (config_.breakpoint_progress.size() > kMaxBreakpoints) {
    report("error: at most " + std::to_string(kMaxBreakpoints) +
               " --progress points (the CPU has that many debug registers); use "
               "--sampled-progress for more; running the program without profiling",
           true);
    return false;
  }
  for (const std::string& spec : config_.breakpoint_progress) {
    SourceLine* line = resolve_line(spec, "--progress");
    if (!line) {
      return false;
    }
    // The line's first instruction: its lowest address in any loaded object.
    uintptr_t first = 0;
    map_.for_each_object([&](const ObjectLines& o) {
      for (const AddressRange& r : o.ranges) {
        if (r.line == line && (first == 0 || r.lo < first)) {
          first = r.lo;
        }
      }
    });
    Breakpoint& bp = breakpoints_[breakpoints_count_++];
    bp.address = first;
    bp.counter = points_.get(static_cast<int>(PointKind::kThroughput), spec.c_str());
  }
  for (const std::string& spec : config_.sampled_progress) {
    SourceLine* line = resolve_line(spec, "--sampled-progress");
    if (!line) {
      return false;
    }
    if (sampled_points_count_ == kMaxSampledPoints) {
      report("error: at most " + std::to_string(kMaxSampledPoints) +
                 " --sampled-progress points; running the program without profiling",
             true);
      return false;
    }
    sampled_points_[sampled_points_count_++] = {
        line, points_.get(static_cast<int>(PointKind::kThroughput), spec.c_str())};
  }
  return true;
}

bool Runtime::open_breakpoints(ThreadState* state, pid_t tid, std::string* error) {
  bool ok = true;
  threads_.locked([&] {
    for (size_t i = 0; i < breakpoints_count_ && ok; i++) {
      if (state->breakpoint_fds[i].load() < 0) {  // not opened already (a thread attached twice)
        state->breakpoint_fds[i].store(
            open_breakpoint_counter(breakpoints_[i].address, tid, error));
        ok = state->breakpoint_fds[i].load() >= 0;
        if (ok) {
          own_fds::adopt(&state->breakpoint_fds[i]);
        }
      }
    }
  });
  return ok;
}

void Runtime::close_breakpoints(ThreadState* state) {
  if (breakpoints_count_ == 0) {
    return;
  }
  threads_.locked([&] {  // refresh_breakpoint_counts() must not read a descriptor being closed
    for (size_t i = 0; i < breakpoints_count_; i++) {
      int fd = state->breakpoint_fds[i].load();
      if (fd >= 0) {
        // A number the program took over (a raw syscall) is never read; the lock keeps a dup2
        // from landing between the check and the read.
        own_fds::Lock fds;
        uint64_t count = own_fds::still_ours(fd) ? read_breakpoint_counter(fd) : 0;
        own_fds::release(&state->breakpoint_fds[i]);
        breakpoints_[i].retired.fetch_add(count, std::memory_order_relaxed);
      }
    }
  });
}

void Runtime::refresh_breakpoint_counts() {
  if (breakpoints_count_ == 0) {
    return;
  }
  uint64_t totals[kMaxBreakpoints] = {};
  // Under the registry lock throughout: an exiting thread moves its count to `retired` under
  // the same lock, so it is counted once, and its descriptor stays open while it is read.
  threads_.for_each_live(
      [&](ThreadState& s) {
        own_fds::Lock fds;  // see close_breakpoints (always taken inside the registry lock)
        for (size_t i = 0; i < breakpoints_count_; i++) {
          int fd = s.breakpoint_fds[i].load();
          if (fd >= 0 && own_fds::still_ours(fd)) {
            totals[i] += read_breakpoint_counter(fd);
          }
        }
      },
      [&] {
        for (size_t i = 0; i < breakpoints_count_; i++) {
          totals[i] += breakpoints_[i].retired.load(std::memory_order_relaxed);
        }
      });
  for (size_t i = 0; i < breakpoints_count_; i++) {
    __atomic_store_n(&breakpoints_[i].counter->count, totals[i], __ATOMIC_RELAXED);
  }
}

}  // namespace coz
