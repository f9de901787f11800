// The experiment cycle (see experiment_cycle.h).
#include "experiment/experiment_cycle.h"

namespace coz {

ExperimentCycle::Phase ExperimentCycle::phase(uint64_t now) {
  if (phase_ == Phase::kRunning && now >= until_ns_) {
    phase_ = Phase::kEnding;
  } else if (phase_ == Phase::kCoolingOff && now >= until_ns_) {
    phase_ = Phase::kChoosing;
  }
  return phase_;
}

void ExperimentCycle::begin(uint64_t now, bool whole_run) {
  experiments_++;
  phase_ = Phase::kRunning;
  until_ns_ = whole_run ? kNever : now + scheduler_.length_ns();
}

void ExperimentCycle::end(uint64_t now, uint64_t visits, uint64_t fewest) {
  scheduler_.finished(visits, fewest);
  phase_ = Phase::kCoolingOff;
  until_ns_ = now + scheduler_.settings().cooloff_ns;
}

uint64_t ExperimentCycle::left_ns(uint64_t now) const {
  if ((phase_ != Phase::kRunning && phase_ != Phase::kCoolingOff) || until_ns_ == kNever) {
    return kNever;
  }
  return until_ns_ > now ? until_ns_ - now : 0;
}

}  // namespace coz
