// Which delays an experiment takes off its time: those the threads that made its progress really
// took (section 5.1, eqs. 5.1-5.4; docs/experiments.md, "Delays the progress took").
//
// Eq. 5.1 takes the global delay total off the elapsed time: every thread is assumed to have
// paused for all of it, or to have been credited it while blocked. A thread that cannot keep up
// (a sped-up line that runs all the time on another core raises the total as fast as the clock
// runs) is still behind when the experiment ends, and what it still owed never lengthened its
// time. Taking it off anyway shortens the experiment for nothing: a line nobody waits for read
// +60-70% at 100%. Here each progress visit is timed by the thread that made it: its delays are
// what that thread took, been credited or saved (its local total); a thread blocked at the end
// counts as credited up to the global total less what it owed going in, as a wake would credit
// it. Visits no thread accounts for (a program built with Coz's own header, another process of
// the run) keep the global total.
// Pure: the runner gathers the numbers (threads/progress_threads.h).
#pragma once

#include <cstdint>
#include <vector>

namespace coz {

// One thread's part in an experiment.
struct ProgressThread {
  uint64_t visits = 0;    // its progress visits during the experiment (every point's)
  uint64_t taken_ns = 0;  // delay it took, was credited or saved in the experiment
};

struct TakenDelays {
  uint64_t taken_ns = 0;  // the delays to take off the experiment's time
  // What the threads that made the progress still owed at the end (weighted as taken_ns): the
  // global total less taken_ns.
  uint64_t owed_ns = 0;
};

// `global_ns`: the ledger's total at the end; `visits`: the experiment's progress visits over
// every point (throughput visits, latency arrivals and departures), whoever made them; `threads`:
// the threads that counted visits of their own. With no visits at all, the global total (nothing
// tells whose time the experiment measured).
TakenDelays delays_taken(uint64_t global_ns, uint64_t visits,
                         const std::vector<ProgressThread>& threads);

}  // namespace coz
