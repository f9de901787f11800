// The threads that make an experiment's progress (see progress_threads.h).
#include "threads/progress_threads.h"

#include <algorithm>

#include "base/plain_math.h"
#include "base/platform.h"

namespace coz {

ProgressThread ProgressThreads::part_of(const ThreadState& t, uint64_t epoch, uint64_t global_ns,
                                        uint64_t now_ns) {
  ProgressThread part;
  uint64_t count = __atomic_load_n(&t.visits.count, __ATOMIC_RELAXED);
  uint64_t base =
      t.visits_base_epoch == epoch || t.visits_base_epoch == kVisitsSinceAttach ? t.visits_base : 0;
  part.visits = count > base ? count - base : 0;
  if (part.visits == 0) {
    return part;
  }
  // Not seen since the experiment began: it has taken none of it yet (as DelayLedger::owed).
  if (__atomic_load_n(&t.delays.epoch, __ATOMIC_RELAXED) == epoch) {
    part.taken_ns = __atomic_load_n(&t.delays.ns, __ATOMIC_RELAXED);
  }
  if (t.blocked_now.load(std::memory_order_acquire)) {
    uint64_t kept = __atomic_load_n(&t.block_epoch, __ATOMIC_RELAXED) == epoch
                        ? __atomic_load_n(&t.block_debt_ns, __ATOMIC_RELAXED)
                        : 0;
    part.taken_ns = std::max(part.taken_ns, global_ns > kept ? global_ns - kept : 0);
  }
  uint64_t pause_end = t.pause_end_ns.load(std::memory_order_relaxed);
  uint64_t unpaused = pause_end > now_ns ? pause_end - now_ns : 0;  // the pause's rest
  part.taken_ns -= std::min(part.taken_ns, unpaused);
  if (t.visits_base_epoch == epoch) {
    part.taken_ns += t.pause_spill_ns;
  }
  part.taken_ns = std::min(part.taken_ns, global_ns);
  return part;
}

void ProgressThreads::begin() {
  uint64_t epoch = ledger_.epoch();
  uint64_t now = platform::monotonic_ns();
  std::lock_guard<std::mutex> lock(mutex_);  // the bases departed() also writes
  threads_.for_each_live([&](ThreadState& t) {
    t.visits_base = __atomic_load_n(&t.visits.count, __ATOMIC_RELAXED);
    uint64_t pause_end = t.pause_end_ns.load(std::memory_order_relaxed);
    t.pause_spill_ns = pause_end > now ? pause_end - now : 0;
    t.visits_base_epoch = epoch;
  });
  departed_epoch_ = epoch;
  departed_visits_ = 0;
  departed_weighted_ = 0;
}

void ProgressThreads::departed(ThreadState& t) {
  if (!ledger_.active()) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t epoch = ledger_.epoch();
  ProgressThread part = part_of(t, epoch, ledger_.global_ns(), platform::monotonic_ns());
  if (part.visits == 0 || departed_epoch_ != epoch) {
    return;
  }
  departed_visits_ += part.visits;
  departed_weighted_ += static_cast<double>(part.visits) * static_cast<double>(part.taken_ns);
  // Its visits are counted here from now on, not again among the live threads (it is still one
  // until it detaches): end() walks them under this lock.
  t.visits_base = __atomic_load_n(&t.visits.count, __ATOMIC_RELAXED);
  t.visits_base_epoch = epoch;
}

std::vector<ProgressThread> ProgressThreads::end() {
  uint64_t epoch = ledger_.epoch();
  uint64_t global = ledger_.global_ns();
  uint64_t now = platform::monotonic_ns();
  std::vector<ProgressThread> parts;
  // Held across the walk: a thread leaving meanwhile is counted either live or departed, once
  // (departed() takes only this lock; the walk takes the registry's after it).
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.for_each_live([&](ThreadState& t) {
    ProgressThread part = part_of(t, epoch, global, now);
    if (part.visits != 0) {
      parts.push_back(part);
    }
  });
  if (departed_epoch_ == epoch && departed_visits_ != 0) {
    // The threads that left, as one: the same visits and the same visits x delays.
    parts.push_back(
        {departed_visits_, plain_math::round_to_u64(departed_weighted_ / departed_visits_)});
  }
  return parts;
}

}  // namespace coz
