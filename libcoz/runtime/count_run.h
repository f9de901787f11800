// A process of `coz compare` (RunConfig::count_only): the program runs as natively as the
// preloaded library allows. No sampler, no experiments, no profiler thread and no delays; the
// hooks find no runtime and only call the real functions. What it does:
// - moves the layout by the run's seed (layout/layout_shift.h) before the program's own code
//   runs: a block of the heap held, a reservation ahead of its memory mappings, and each new
//   thread's stack moved down (next_thread_pad, from the pthread_create hook);
// - counts the program's progress points (the process's own ProgressPoints), and, once a latency
//   point exists, integrates its requests in flight over time in a thread of its own (a look a
//   millisecond): with the departures, the mean latency by Little's law;
// - at exit (the destructor, _exit, _Exit, quick_exit) appends one block to the counts file: the
//   process, how long it lived and its visits of each point. A forked child counts from its
//   fork on (its parent's visits until then are its parent's).
// Threads: start() from the library constructor, before any thread of the program; finish() from
// the exiting thread (once per process; not in a vfork child); next_thread_pad() from any thread.
// In a process that does not count, none of them allocates or locks. finish() formats and writes
// a block: from an _exit the program calls in a signal handler that interrupted malloc it could
// wait, as the runtime's own shut-down there could.
#pragma once

#include <cstddef>

#include "config/run_config.h"
#include "points/progress_points.h"

namespace coz::count_run {

// First thing in the library constructor, before the runtime allocates anything: in a count-only
// run, the layout's block of the heap, so the runtime's own allocations and the blocks it frees
// (which the program's first allocations of those sizes reuse) move with it too.
void hold_heap_pad();
// Starts counting when `config.count_only` names a file; false (and nothing done) otherwise.
bool start(const RunConfig& config, ProgressPoints& points);
bool active();
// A latency point (COZ_BEGIN/COZ_END) was named: starts the in-flight ticker, once per process.
// From _coz_get_counter, in the program's thread (never in a signal handler: it may create a
// thread).
void latency_point_added();
// How far to move the stack of the thread being created (0 when not counting).
size_t next_thread_pad();
// Appends this process's counts; a no-op after the first call and in a vfork child.
void finish();

}  // namespace coz::count_run
