// One run across a process tree: the memory every profiled process of a run maps, and how a
// process finds it (docs/process-trees.md).
//
// The root process (the first to start the runtime, with no run to join) maps a memfd MAP_SHARED
// and names it to its exec'd descendants in COZ_SHARED ("PID:FD", the root and its descriptor); a
// forked child inherits the mapping itself. It holds what must be one for the whole tree: the
// experiment (selected line by key, the delay ledger's global word, the offered line) and the
// progress points' counters. Nothing in it is locked, so a process that dies at any point leaves
// nothing held; only the root's profiler thread starts and ends experiments.
// Threads: join_run() once, in the library constructor, before any other thread of the runtime.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "config/run_config.h"
#include "experiment/experiment_state.h"
#include "experiment/handoff_table.h"
#include "points/progress_points.h"

namespace coz {

struct SharedRun {
  static constexpr uint64_t kMagic = 0x36757272756e7a63ull;  // a version: change with the layout
  uint64_t magic = kMagic;
  uint64_t size = sizeof(SharedRun);
  std::atomic<int32_t> root_pid{0};
  std::atomic<uint64_t> processes{1};  // processes that took part, the root included
  // The root's sampler (SamplerKind + 1; 0 before it chose): a follower asked for auto takes it
  // without testing perf_event again.
  std::atomic<int32_t> sampler{0};
  // The root's profiler thread, at least every 10 ms (CLOCK_MONOTONIC): a follower in another
  // PID namespace, which cannot signal the root, still tells a live root from a gone one.
  std::atomic<uint64_t> root_alive_ns{0};
  // Processes with lines in scope, and the command-line lines some process resolved (the bits
  // CommandLinePoints names: kFixedLineBit, breakpoint_bit(i), sampled_bit(i)).
  std::atomic<uint32_t> with_lines{0};
  std::atomic<int32_t> wait_tests{0};  // BlockedTime::start's findings, for the run's processes
  std::atomic<uint32_t> resolved{0};
  // The warning that the profiler's descriptors take numbers the program could open (a low
  // `ulimit -n`): said by the first process of the run to need one (own_fds.h).
  std::atomic<bool> descriptors_said{false};
  ExperimentState experiment;
  SharedPoints points;
  // Counts published by wakers in one process for waiters in another, under keys that mean the
  // same in every process (hooks/fd_keys.h): a pipe's file, a child's pid.
  HandoffTable handoffs;
};

// How this process takes part in the run (the runtime's one role enum). A follower is sampled
// and delayed, its lines and points counted, and runs no experiments.
enum class RunRole {
  kRoot,          // runs the experiments
  kExecFollower,  // started by exec (a program the run's processes started), which joins the
                  // run owing nothing inserted before it existed
  kForkFollower,  // the child of a fork, going on with its parent's line map, sampler, waits
                  // and the forking thread's delay count (Runtime::follow_into_child)
  kOff,           // a child left unprofiled (children are not followed, or the run cannot be found)
};
inline bool is_follower(RunRole role) {
  return role == RunRole::kExecFollower || role == RunRole::kForkFollower;
}

struct JoinedRun {
  RunRole role = RunRole::kOff;
  SharedRun* run = nullptr;  // null when kOff
  bool shared = false;       // mapped by the run's other processes (else children are not followed)
  pid_t root_pid = 0;
  bool other_pid_namespace = false;  // the root's pid names another process here, or none
  std::string why;                   // kOff: why this process is not profiled (empty: said nothing)
};

// The variable naming the run to exec'd children: "PID:FD:NS", the root's pid, the descriptor of
// the run's memory in it (-1: children are not followed) and its PID namespace's inode (a child
// in another namespace says why it cannot join; "PID:FD" from older builds reads too). Where
// descriptors are scarce (own_fds::descriptors_scarce), "PID:FILE:NS": the memory is a file of
// /dev/shm (config/run_config.h's kSharedRunFilePrefix, the root's pid, a random part), which the
// root holds no descriptor of and removes at its end; `coz run` removes one a killed root left.
inline constexpr const char* kSharedRunVariable = "COZ_SHARED";

// Joins the run COZ_SHARED names, or starts one: maps new memory (shared with children when
// `follow`, else private) and keeps its descriptor high, out of the program's way (own_fds.h).
// A re-exec of the root (COZ_SHARED names this process) starts afresh.
JoinedRun join_run(bool follow);
// The root, once profiling runs: names the run in COZ_SHARED for exec'd children ("PID:-1" when
// they are not followed, so they stay unprofiled instead of starting runs of their own).
void publish_run(const JoinedRun& joined, bool follow);
// The root, at its end: removes the run's file of /dev/shm, if it made one.
void remove_run_file();

}  // namespace coz
