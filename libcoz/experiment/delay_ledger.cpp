// Counter-coordinated delays (see delay_ledger.h).
#include "experiment/delay_ledger.h"

namespace coz {

void DelayLedger::begin(uint64_t delay_ns) {
  delay_ns_.store(delay_ns, std::memory_order_release);
  uint64_t epoch = unpack_epoch(global_.load(std::memory_order_acquire)) + 1;
  global_.store(pack(epoch, 0), std::memory_order_release);
  active_.store(true, std::memory_order_release);
}

void DelayLedger::end() {
  active_.store(false, std::memory_order_release);
  delay_ns_.store(0, std::memory_order_release);
}

void DelayLedger::sync_epoch(LocalDelays& local, uint64_t global) const {
  uint64_t epoch = unpack_epoch(global);
  if (local.epoch != epoch) {
    local.epoch = epoch;
    local.count = 0;
  }
}

uint64_t DelayLedger::on_samples(LocalDelays& local, uint64_t selected) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  if (!active()) {
    return 0;
  }
  local.count += selected;
  // Ahead: raise the global count so every other thread owes the difference.
  while (unpack_count(global) < local.count && unpack_epoch(global) == local.epoch) {
    if (global_.compare_exchange_weak(global, pack(local.epoch, local.count),
                                      std::memory_order_acq_rel)) {
      return 0;
    }
  }
  if (unpack_epoch(global) != local.epoch) {
    return 0;  // the experiment changed under us
  }
  return take_owed(local);
}

uint64_t DelayLedger::take_owed(LocalDelays& local) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  uint64_t count = unpack_count(global);
  if (!active() || count <= local.count) {
    return 0;
  }
  uint64_t owed = (count - local.count) * delay_ns();
  local.count = count;
  return owed;
}

void DelayLedger::credit(LocalDelays& local) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  if (unpack_count(global) > local.count) {
    local.count = unpack_count(global);
  }
}

void DelayLedger::absorb(LocalDelays& local, uint64_t selected) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  if (!active()) {
    return;
  }
  local.count += selected;
  while (unpack_count(global) < local.count && unpack_epoch(global) == local.epoch) {
    if (global_.compare_exchange_weak(global, pack(local.epoch, local.count),
                                      std::memory_order_acq_rel)) {
      return;
    }
  }
}

void DelayLedger::credit_to(LocalDelays& local, uint64_t count) {
  uint64_t global = global_.load(std::memory_order_acquire);
  sync_epoch(local, global);
  uint64_t limit = count < unpack_count(global) ? count : unpack_count(global);
  if (limit > local.count) {
    local.count = limit;
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
