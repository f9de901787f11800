// Command-line progress points (see command_line_points.h).
#include "attribution/command_line_points.h"

#include "base/own_fds.h"
#include "config/file_line.h"
#include "sample/breakpoint_counter.h"

namespace coz {

SourceLine* CommandLinePoints::resolve_line(const LineTable& lines, const std::string& spec,
                                            const char* option, std::string* error,
                                            bool* elsewhere) {
  FileLine at;
  bool named = parse_file_line(spec, &at);
  bool ambiguous = false;
  SourceLine* line = named ? lines.find(at.file, at.line, &ambiguous) : nullptr;
  if (!line) {
    *error = std::string(option) + " " + spec + " " +
             (!named      ? kNotFileLine
              : ambiguous ? "names more than one file; give more of the path"
                          : "has no code in scope; pick a line that the compiler emitted code for");
    if (elsewhere) {
      *elsewhere = named && !ambiguous && !lines.has_file(at.file);
    }
  }
  return line;
}

bool CommandLinePoints::resolve(const RunConfig& config, const LineTable& lines, const LineMap& map,
                                ProgressPoints& points, Missing missing_line, uint32_t* found,
                                std::string* error) {
  // A line of a file this program does not have may be another process's.
  bool elsewhere = false;
  auto missing = [&] {
    return missing_line == Missing::kError || (missing_line == Missing::kElsewhere && !elsewhere);
  };
  for (const std::string& spec : config.breakpoint_progress) {
    SourceLine* line = resolve_line(lines, spec, "--progress", error, &elsewhere);
    if (!line) {
      if (missing()) {
        return false;
      }
      continue;
    }
    *found |= breakpoint_bit(static_cast<size_t>(&spec - config.breakpoint_progress.data()));
    // The line's first instruction: its lowest address in any loaded object.
    uintptr_t first = 0;
    map.for_each_object([&](const ObjectLines& o) {
      for (const AddressRange& r : o.ranges) {
        if (r.line == line && (first == 0 || r.lo < first)) {
          first = r.lo;
        }
      }
    });
    Breakpoint& bp = breakpoints_[breakpoints_count_++];
    bp.address = first;
    bp.counter = points.get(static_cast<int>(PointKind::kThroughput), spec.c_str());
  }
  for (const std::string& spec : config.sampled_progress) {
    SourceLine* line = resolve_line(lines, spec, "--sampled-progress", error, &elsewhere);
    if (!line) {
      if (missing()) {
        return false;
      }
      continue;
    }
    *found |= sampled_bit(static_cast<size_t>(&spec - config.sampled_progress.data()));
    sampled_[sampled_count_++] = {
        line, points.get(static_cast<int>(PointKind::kThroughput), spec.c_str())};
  }
  error->clear();
  return true;
}

bool CommandLinePoints::open(ThreadState& state, pid_t tid, std::string* error) {
  bool ok = true;
  threads_.locked([&] {
    for (size_t i = 0; i < breakpoints_count_ && ok; i++) {
      if (state.breakpoint_fds[i].load() < 0) {  // not opened already (a thread attached twice)
        state.breakpoint_fds[i].store(open_breakpoint_counter(breakpoints_[i].address, tid, error));
        ok = state.breakpoint_fds[i].load() >= 0;
        if (ok) {
          own_fds::adopt(&state.breakpoint_fds[i]);
        }
      }
    }
  });
  return ok;
}

void CommandLinePoints::close(ThreadState& state) {
  if (breakpoints_count_ == 0) {
    return;
  }
  threads_.locked([&] {  // refresh() must not read a descriptor being closed
    for (size_t i = 0; i < breakpoints_count_; i++) {
      int fd = state.breakpoint_fds[i].load();
      if (fd >= 0) {
        // A number the program took over (a raw syscall) is never read; the lock keeps a dup2
        // from landing between the check and the read.
        own_fds::Lock fds;
        uint64_t count = own_fds::still_ours(fd) ? read_breakpoint_counter(fd) : 0;
        own_fds::release(&state.breakpoint_fds[i]);
        breakpoints_[i].retired.fetch_add(count, std::memory_order_relaxed);
      }
    }
  });
}

void CommandLinePoints::refresh() {
  if (breakpoints_count_ == 0) {
    return;
  }
  uint64_t totals[kMaxBreakpointPoints] = {};
  // Under the registry lock throughout: an exiting thread moves its count to `retired` under
  // the same lock, so it is counted once, and its descriptor stays open while it is read.
  threads_.for_each_live(
      [&](ThreadState& s) {
        own_fds::Lock fds;  // see close() (always taken inside the registry lock)
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
    Breakpoint& bp = breakpoints_[i];
    if (totals[i] > bp.published) {
      __atomic_add_fetch(&bp.counter->count, totals[i] - bp.published, __ATOMIC_RELAXED);
      bp.published = totals[i];
    }
  }
}

}  // namespace coz
