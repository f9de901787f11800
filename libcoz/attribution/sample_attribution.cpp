// Sample attribution (see sample_attribution.h).
#include "attribution/sample_attribution.h"

#include "base/platform.h"

namespace coz {

const AddressRange* SampleAttribution::find_line(const Sample& sample) const {
  const AddressRange* range = map_.lookup(sample.ip);
  // Outside scope: charge the innermost in-scope call site. Library code often has no frame
  // pointers, so the callchain skips its caller; the top of the stack holds the return address
  // into it, so look there first for a word that returns just after an in-scope call.
  for (size_t i = 0; !range && i < sample.stack_words; i++) {
    uintptr_t ret = static_cast<uintptr_t>(sample.stack[i]);
    const AddressRange* r = map_.lookup(ret - 1);
    if (r && platform::follows_call(ret)) {
      range = r;
    }
  }
  for (size_t i = 0; !range && i < sample.depth; i++) {
    range = map_.lookup(static_cast<uintptr_t>(sample.callchain[i]) - 1);
  }
  return range;
}

void SampleAttribution::count(const Sample& sample, void* arg) {
  auto* tally = static_cast<Tally*>(arg);
  SampleAttribution* self = tally->self;
  // A sample stands for `weight` sampling periods (a timer's overruns): each counts as one.
  uint64_t n = sample.weight;
  self->total_.fetch_add(n, std::memory_order_relaxed);
  if (const AddressRange* range = self->find_line(sample)) {
    range->line->samples.fetch_add(n, std::memory_order_relaxed);
    for (uint64_t i = 0; i < n; i++) {
      self->points_.on_sample(range->line);
    }
    self->in_scope_.fetch_add(n, std::memory_order_relaxed);
    if (self->experiment_.on_sample(range->line)) {
      if (n > 1) {  // on_sample counted one
        self->experiment_.selected_samples.fetch_add(n - 1, std::memory_order_relaxed);
      }
      tally->selected += n;
      // How many periods one selected-line sample hands out at once (what threads that run the
      // line may carry: DelayProtocol::carry). Written only when it changes.
      std::atomic<uint32_t>& periods = self->experiment_.sample_periods;
      uint32_t weight = static_cast<uint32_t>(n < UINT32_MAX ? n : UINT32_MAX);
      if (periods.load(std::memory_order_relaxed) != weight) {
        periods.store(weight, std::memory_order_relaxed);
      }
      if (weight > 1 && !self->experiment_.lumpy_samples.load(std::memory_order_relaxed)) {
        self->experiment_.lumpy_samples.store(true, std::memory_order_relaxed);
      }
    }
  }
}

bool SampleAttribution::count_blocked(const Sample& at, uint64_t n, uint64_t n_inside) {
  const AddressRange* range = find_line(at);
  if (!range) {
    return false;
  }
  range->line->blocked.fetch_add(n, std::memory_order_relaxed);
  if (!experiment_.on_sample(range->line)) {
    return false;
  }
  if (n_inside != 1) {  // on_sample counted one
    experiment_.selected_samples.fetch_add(n_inside - 1, std::memory_order_relaxed);
  }
  return true;
}

uint64_t SampleAttribution::drain(ThreadState& t) {
  Tally tally{this};
  t.samples += t.sampler->drain(count, &tally);
  return tally.selected;
}

// From the sampling signal, or from a hook (the delay protocol: a signal arriving meanwhile
// defers to the hook).
bool SampleAttribution::collect(ThreadState& t) {
  if (!t.sampler->has_pending() && !t.draining.load(std::memory_order_acquire)) {
    return true;  // the common case in a hook: two loads, no atomic exchange, no store to the ring
  }
  if (!t.try_begin_drain()) {
    return false;
  }
  uint64_t selected = drain(t);
  t.end_drain();
  t.pending_selected += selected;
  return true;
}

}  // namespace coz
