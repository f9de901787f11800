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

bool Scheduler::take_line(uint64_t line_experiments, uint64_t experiments, uint64_t lines_tried,
                          Random& random) const {
  if (!settings_.balance_lines || lines_tried == 0) {
    return true;
  }
  double mean = static_cast<double>(experiments) / static_cast<double>(lines_tried);
  double p = (mean + 1.0) / (static_cast<double>(line_experiments) + 1.0);
  return p >= 1.0 || std::uniform_real_distribution<double>(0.0, 1.0)(random) < p;
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
