// Counter-coordinated delays (see delay_ledger.h).
#include "experiment/delay_ledger.h"

namespace coz {

void DelayLedger::begin(uint64_t delay_ns) {
  delay_ns_.store(delay_ns, std::memory_order_release);
  uint64_t epoch =
      (epoch_count::epoch(global_.load(std::memory_order_acquire)) + 1) & epoch_count::kEpochMask;
  global_.store(epoch_count::pack(epoch, 0), std::memory_order_release);
  active_.store(true, std::memory_order_release);
}

void DelayLedger::end() {
  active_.store(false, std::memory_order_release);
  delay_ns_.store(0, std::memory_order_release);
}

uint64_t DelayLedger::raise_to(uint64_t ns) {
  uint64_t global = global_.load(std::memory_order_acquire);
  ns = ns < epoch_count::kNsMask ? ns : epoch_count::kNsMask;
  while (active() && epoch_count::ns(global) < ns) {
    if (global_.compare_exchange_weak(global, epoch_count::pack(epoch_count::epoch(global), ns),
                                      std::memory_order_acq_rel)) {
      return ns - epoch_count::ns(global);
    }
  }
  return 0;
}

void DelayLedger::sync_epoch(LocalDelays& local, uint64_t global) const {
  uint64_t epoch = epoch_count::epoch(global);
  if (local.epoch != epoch) {
    local.epoch = epoch;
    local.ns = 0;
  }
}

uint64_t DelayLedger::absorb(LocalDelays& local, uint64_t faster_ns) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  if (!active()) {
    return 0;
  }
  // Saturates at what the global word holds (19.5 hours of delay in one experiment).
  local.ns =
      faster_ns > epoch_count::kNsMask - local.ns ? epoch_count::kNsMask : local.ns + faster_ns;
  // Ahead: raise the global total so every other thread owes the difference.
  while (epoch_count::ns(global) < local.ns && epoch_count::epoch(global) == local.epoch) {
    if (global_.compare_exchange_weak(global, epoch_count::pack(local.epoch, local.ns),
                                      std::memory_order_acq_rel)) {
      return local.ns - epoch_count::ns(global);
    }
  }
  return 0;
}

uint64_t DelayLedger::advance(LocalDelays& local, uint64_t faster_ns, uint64_t* raised,
                              uint64_t carry_ns) {
  uint64_t rose = absorb(local, faster_ns);
  if (raised) {
    *raised = rose;
  }
  return take_owed(local, carry_ns);
}

uint64_t DelayLedger::owed(const LocalDelays& local, uint64_t* epoch) const {
  uint64_t global = global_.load(std::memory_order_acquire);
  if (epoch) {
    *epoch = epoch_count::epoch(global);
  }
  if (!active()) {
    return 0;
  }
  if (epoch_count::epoch(global) != local.epoch) {
    // Not seen since this experiment began: it has taken nothing of it yet (take_owed agrees).
    return epoch_count::ns(global);
  }
  return epoch_count::ns(global) > local.ns ? epoch_count::ns(global) - local.ns : 0;
}

uint64_t DelayLedger::take_owed(LocalDelays& local, uint64_t carry_ns) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  uint64_t total = epoch_count::ns(global);
  if (!active() || total <= local.ns || total - local.ns <= carry_ns) {
    return 0;
  }
  uint64_t owed = total - local.ns - carry_ns;
  local.ns = total - carry_ns;
  return owed;
}

void DelayLedger::credit_to(LocalDelays& local, uint64_t ns, uint64_t max_gain,
                            uint64_t kept_debt) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  uint64_t limit = ns < epoch_count::ns(global) ? ns : epoch_count::ns(global);
  uint64_t keep = epoch_count::ns(global) > kept_debt ? epoch_count::ns(global) - kept_debt : 0;
  limit = limit < keep ? limit : keep;
  if (limit > local.ns && limit - local.ns > max_gain) {
    limit = local.ns + max_gain;
  }
  if (limit > local.ns) {
    local.ns = limit;
  }
}

uint64_t DelayLedger::pause_for(LocalDelays& local, uint64_t want_ns) {
  int64_t want = static_cast<int64_t>(want_ns);
  if (local.excess_ns >= want) {
    local.excess_ns -= want;
    return 0;
  }
  uint64_t sleep = static_cast<uint64_t>(want - local.excess_ns);
  local.excess_ns = 0;
  return sleep;
}

void DelayLedger::paused(LocalDelays& local, uint64_t asked_ns, uint64_t slept_ns) {
  local.excess_ns += static_cast<int64_t>(slept_ns) - static_cast<int64_t>(asked_ns);
}

}  // namespace coz
