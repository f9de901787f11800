// Delay-count handoff between wakers and the woken (see handoff_table.h).
#include "experiment/handoff_table.h"

#include "experiment/epoch_count.h"

namespace coz {

size_t HandoffTable::slot(const void* key) {
  uint64_t k = reinterpret_cast<uintptr_t>(key);
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return static_cast<size_t>(k % kSlots);
}

void HandoffTable::publish(const void* key, uint64_t epoch, uint64_t count) {
  std::atomic<uint64_t>& s = slots_[slot(key)];
  uint64_t value = epoch_count::pack(epoch, count);
  uint64_t old = s.load(std::memory_order_relaxed);
  // Same experiment: keep the higher count. Older experiment: replace.
  while (epoch_count::epoch(old) != epoch || epoch_count::ns(old) < count) {
    if (s.compare_exchange_weak(old, value, std::memory_order_acq_rel)) {
      return;
    }
  }
}

uint64_t HandoffTable::read(const void* key, uint64_t epoch) const {
  uint64_t v = slots_[slot(key)].load(std::memory_order_acquire);
  return epoch_count::epoch(v) == epoch ? epoch_count::ns(v) : 0;
}

}  // namespace coz
