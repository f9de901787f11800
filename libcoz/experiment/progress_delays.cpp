// Delays the progress took (see progress_delays.h).
#include "experiment/progress_delays.h"

#include <algorithm>

#include "base/plain_math.h"

namespace coz {

TakenDelays delays_taken(uint64_t global_ns, uint64_t visits,
                         const std::vector<ProgressThread>& threads) {
  uint64_t attributed = 0;
  double weighted = 0;  // visits x taken: past 64 bits for a long run of many visits
  for (const ProgressThread& t : threads) {
    attributed += t.visits;
    weighted +=
        static_cast<double>(t.visits) * static_cast<double>(std::min(t.taken_ns, global_ns));
  }
  // The threads' own counts and the points' counters are read a moment apart: the larger is the
  // experiment's, and what the threads do not account for was timed by the global total.
  uint64_t all = std::max(visits, attributed);
  if (all == 0) {
    return {global_ns, 0};
  }
  weighted += static_cast<double>(all - attributed) * static_cast<double>(global_ns);
  uint64_t taken = std::min(global_ns, plain_math::round_to_u64(weighted / all));
  return {taken, global_ns - taken};
}

}  // namespace coz
