// The program's source lines in scope: the line table and the address map of every loaded object
// the scope takes in, mapped at start-up and again as libraries load later (dlopen is not
// interposed: the profiler thread calls map_new_objects() between experiments).
// Threads: map_new_objects() from start-up, then the profiler thread; map() lookups from any
// thread, signal handlers included (LineMap::lookup is async-signal-safe).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "config/run_config.h"
#include "line/line_map.h"
#include "line/line_table.h"
#include "line/scope.h"
#include "runtime/reporter.h"

namespace coz {

class ProgramLines {
 public:
  ProgramLines(const RunConfig& config, const Reporter& reporter);
  ProgramLines(const ProgramLines&) = delete;
  ProgramLines& operator=(const ProgramLines&) = delete;

  // Maps the objects in scope loaded since the last call (every one, the first time).
  void map_new_objects();
  // Why profiling cannot run at all: the scope is the main program only and none of its lines
  // has debug information. Empty when it can.
  std::string no_lines_reason() const;

  const LineTable& table() const { return lines_; }
  void clear_counts() { lines_.clear_counts(); }
  // Held across fork() (Runtime::before_fork): no mapping half done in a forked child.
  void before_fork() {
    mutex_.lock();
    lines_.before_fork();
  }
  void after_fork() {
    lines_.after_fork();
    mutex_.unlock();
  }
  const LineMap& map() const { return map_; }

 private:
  Scope scope_;
  std::string debug_path_;
  bool user_source_scope_;  // --source-scope was given
  const Reporter& reporter_;
  LineTable lines_;
  LineMap map_;
  std::mutex mutex_;         // serialises adding objects to map_
  bool mapped_ = false;      // map_new_objects() has run
  uint64_t generation_ = 0;  // loaded_objects_generation() when last mapped
};

}  // namespace coz
