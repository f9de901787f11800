// Speedup draws and the experiment-length rule (see scheduler.h).
#include "experiment/scheduler.h"

#include <algorithm>

namespace coz {

int Scheduler::draw_speedup(Random& random) const {
  if (settings_.fixed_speedup >= 0) {
    return settings_.fixed_speedup;
  }
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  if (coin(random) < settings_.zero_speedup_share) {
    return 0;
  }
  int step = settings_.speedup_step > 0 ? settings_.speedup_step : kDefaultSpeedupStep;
  std::uniform_int_distribution<int> level(1, 100 / step);
  return level(random) * step;
}

void Scheduler::finished(uint64_t visits, uint64_t fewest_visits) {
  if (visits < settings_.min_visits) {
    length_ns_ =
        std::min(length_ns_ * 2, std::max(settings_.max_length_ns, settings_.initial_length_ns));
  } else if (fewest_visits > settings_.plenty_visits) {
    length_ns_ =
        std::max(length_ns_ / 2, std::min(settings_.min_length_ns, settings_.initial_length_ns));
  }
}

}  // namespace coz
