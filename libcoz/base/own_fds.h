// The profiler's own file descriptors (the profile, perf_event samplers, breakpoint counters):
// moved above the range a program normally uses and registered here, so the descriptor hooks
// (interpose/fd_hooks.cpp) can keep the program from closing or replacing them, as it would
// otherwise do with close_range(3, ~0U, 0), closefrom() or a daemon's close loop.
//
// Each descriptor lives in an owner's slot (an std::atomic<int>). When the program dup2()s onto
// one of them, the descriptor moves to a free number first and its slot is updated, so the
// program gets the number it asked for and the profiler keeps its file.
//
// Threading: is_ours() is lock-free and async-signal-safe. Everything else takes the table's
// spin lock and must not be called from a signal handler. In a child made by fork() the table
// is emptied: the child's copies of the descriptors are the program's to close.
#pragma once

#include <atomic>

namespace coz::own_fds {

// Moves `fd` above the program's reach (close-on-exec), closing the original. Returns the new
// number, or `fd` itself when no higher number is free.
int move_high(int fd);
// A close-on-exec copy of `fd` above the program's usual range (or anywhere free), not
// registered; -1 with errno when none can be made.
int copy_high(int fd);

// Registers the descriptor in `slot` as the profiler's. `slot` must stay at its address until
// release() or forget().
void adopt(std::atomic<int>* slot);
// Closes the descriptor in `slot` (unless its number now names another file: then it is the
// program's), forgets it and sets the slot to -1.
void release(std::atomic<int>* slot);
// Forgets the descriptor in `slot` without closing it (it is no longer ours: see
// ProfileWriter's identity check) and sets the slot to -1.
void forget(std::atomic<int>* slot);

// Whether `fd` is one of the profiler's. Async-signal-safe.
bool is_ours(int fd);
// Whether `fd` is registered and still names the file it named then (not a number the program
// took over with a raw system call): check before reading it.
bool still_ours(int fd);
// Whether the profiler may open one more descriptor: above the soft limit, up to the hard one;
// within the program's range, at most half of the soft limit (`limit`, set to it), so the
// program always has the other half.
bool room_for_one_more(long* limit);
// Whether descriptors are scarce: no room above the soft limit (ulimit -n, soft and hard alike)
// and a soft limit under 1024, the usual default, which someone lowered who counts them. The
// profiler then holds as few as it can: the sampler that needs none per thread (the timer engine,
// sampler_choice.h) and the profile opened for each block it appends (profile_writer.h).
bool descriptors_scarce();
// The soft descriptor limit (ulimit -n), capped at INT_MAX; 1024 when unknown or unlimited.
long soft_limit();
// Called by the runtime in a profiled program: from then on, a descriptor that has to go within
// the program's range (no room above a low limit) is said on stderr, once in the whole run: by
// the first process to exchange `said_in_run` (the run's shared memory) to true. Elsewhere (coz's
// own process) that costs the program nothing and is not said.
void speak_for_program(std::atomic<bool>* said_in_run);
// False in a vfork() child, which shares this table but not the descriptors: the hooks leave the
// child's descriptors alone.
bool owned_here();
// In a child made by fork(): empties the table (and frees its lock, which another thread of the
// parent may have held), once per process; fork()'s child handlers call it.
void forget_all_in_child();

// Makes `fd` free for the program (dup2/dup3 onto it): moves the profiler's descriptor there to
// another number. Call with the table locked. False (errno set) if it could not be moved.
bool make_room(int fd);

// While one exists, no descriptor of the profiler's moves. Re-entrant in the holding thread.
// Lock order: the thread registry's mutex, then this; never the other way round.
class Lock {
 public:
  Lock();
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
};

// The program's close_range(first, last, flags), leaving the profiler's descriptors alone.
int close_range_except_ours(unsigned first, unsigned last, int flags);

}  // namespace coz::own_fds
