// A trace of the delay protocol, for finding where an experiment's time goes (issue 47): every
// settle, pause, block, publish and credit of every thread, with the time and the ledger's words.
// A debugging switch, not a feature: COZ_LEDGER_TRACE=FILE in the program's environment turns it
// on for the process `coz run` started (not its children, nor an image it execs), and the trace is
// written to FILE (relative to the working directory at exit) as text once the profile is
// complete. It keeps the first 4M events and counts the rest. Off, each note costs one load of a
// null pointer; the hooks' fast path notes nothing.
// benchmarks/barriers/trace_summary.py reads it.
//
// Lines: "T THREAD EVENT A B C D", T in ns (CLOCK_MONOTONIC), THREAD a small number in order of
// first appearance, and for each event:
//   settle   own speedup added, global total before, local total before, paid (asked)
//   pause    asked, slept, local total after, global total
//   block    owed as it blocked (paid before it unless a lock is held), local, global, locks held
//   publish  count published, key, global, 0
//   credit   waker's count, local before, local after, kept debt
//   wake     woken (1/0), key, local, global
//   begin    delay per sample, epoch, 0, 0   (the experiment begins; THREAD 0)
//   end      global total, epoch, 0, 0
//
// Async-signal-safe: entries go into one preallocated array by an atomic index; the whole trace
// is held (a fixed number of entries; later ones are dropped and counted).
#pragma once

#include <atomic>
#include <cstdint>

namespace coz::ledger_trace {

enum class Event : uint32_t { kSettle, kPause, kBlock, kPublish, kCredit, kWake, kBegin, kEnd };

struct Entry {
  uint64_t time_ns;
  const void* thread;
  Event event;
  uint64_t a, b, c, d;
};

// The trace's array, or nullptr when off.
extern std::atomic<Entry*> g_entries;

void append(const void* thread, Event event, uint64_t a, uint64_t b, uint64_t c, uint64_t d);

// Whether the trace is on (for a caller that gathers values only to note them).
inline bool on() {
  return g_entries.load(std::memory_order_relaxed) != nullptr;
}

inline void note(const void* thread, Event event, uint64_t a, uint64_t b = 0, uint64_t c = 0,
                 uint64_t d = 0) {
  if (__builtin_expect(on(), 0)) {
    append(thread, event, a, b, c, d);
  }
}

// Turns the trace on, to be written to `path` by write_out(). False if memory is refused.
bool open(const char* path);
// Writes the trace (in the process that opened it) and turns it off; says so in one line on
// standard error if FILE cannot be written.
void write_out();

}  // namespace coz::ledger_trace
