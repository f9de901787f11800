// The delay protocol's lumps: samples that stand for several periods, counted as perf's samples
// would have raised their periods (see delay_protocol.h and experiment/recent_lumps.h).
#include <algorithm>

#include "delays/delay_protocol.h"

namespace coz {

void DelayProtocol::note_lump(ThreadDelays& t, uint64_t raised_ns, uint64_t now) {
  // What the thread's samples raised the total by, not what they stood for: a thread that owed
  // delays cancels them with its own samples, and only the rest reaches the others.
  uint64_t delay = experiment_.ledger.delay_ns();
  uint64_t periods = delay != 0 ? raised_ns / delay : 0;
  if (periods < 2 || !experiment_.ledger.active() || !experiment_.lumpy()) {
    return;
  }
  // The raiser's last periods, but none before its previous signal (or its start).
  uint64_t span = (periods - 1) * experiment_.period_ns.load(std::memory_order_relaxed);
  uint64_t from = std::max(now > span ? now - span : 0, t.window_from_ns);
  experiment_.lumps.add(experiment_.ledger.epoch(), periods, t.raiser_id, std::min(from, now), now);
}

uint64_t DelayProtocol::early_lump_ns(ThreadDelays& t, uint64_t blocked) {
  // Each lump of k periods another thread raised stands for one period at its own moment (as
  // perf's sample would) and k - 1 spread evenly over its window (experiment/recent_lumps.h). Of
  // those raised during the wait that just ended (`blocked` ns long), the part of the window
  // before the wait began and outside the thread's earlier waits is what the wake must not
  // credit. (Lumps raised while the thread ran are owed whole, as before: spreading those over
  // its earlier waits credited a worker beside a lock for periods its partner ran the line while
  // it ran itself. docs/experiments.md, Lumps and wakes.)
  uint64_t period = experiment_.period_ns.load(std::memory_order_relaxed);
  uint64_t added = experiment_.lumps.added();
  if (period == 0 || amplify_.on() || added <= t.lumps_seen) {
    return 0;
  }
  uint64_t now = env_.now_ns();
  uint64_t start = now > blocked ? now - blocked : 0;
  uint64_t bucket = experiment_.wait_bucket_ns();
  unsigned __int128 early = 0;  // window time, weighted by the periods it holds
  uint64_t looked = experiment_.lumps.for_each(
      experiment_.ledger.epoch(), t.lumps_seen, added,
      [&](uint64_t from, uint64_t at, uint64_t periods, pid_t raiser) {
        if (raiser == t.raiser_id || periods < 2 || from >= at || at <= start || from >= start) {
          return;
        }
        uint64_t before = start - from;
        uint64_t unblocked =
            before - std::min(before, t.waits.blocked_between(from, start, bucket));
        early += static_cast<unsigned __int128>(unblocked) * (periods - 1) * period / (at - from);
      });
  t.lumps_seen = std::max(t.lumps_seen, looked);
  return static_cast<uint64_t>(early * experiment_.ledger.delay_ns() / period);
}

}  // namespace coz
