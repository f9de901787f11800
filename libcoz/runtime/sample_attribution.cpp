// Sample attribution (see sample_attribution.h).
#include "runtime/sample_attribution.h"

#include "platform.h"

namespace coz {

void SampleAttribution::count(const Sample& sample, void* arg) {
  auto* tally = static_cast<Tally*>(arg);
  SampleAttribution* self = tally->self;
  self->total_.fetch_add(1, std::memory_order_relaxed);
  const AddressRange* range = self->map_.lookup(sample.ip);
  // Outside scope: charge the innermost in-scope call site. Library code often has no frame
  // pointers, so the callchain skips its caller; the top of the stack holds the return address
  // into it, so look there first for a word that returns just after an in-scope call.
  for (size_t i = 0; !range && i < sample.stack_words; i++) {
    uintptr_t ret = static_cast<uintptr_t>(sample.stack[i]);
    const AddressRange* r = self->map_.lookup(ret - 1);
    if (r && platform::follows_call(ret)) {
      range = r;
    }
  }
  for (size_t i = 0; !range && i < sample.depth; i++) {
    range = self->map_.lookup(static_cast<uintptr_t>(sample.callchain[i]) - 1);
  }
  if (range) {
    range->line->samples.fetch_add(1, std::memory_order_relaxed);
    self->points_.on_sample(range->line);
    self->in_scope_.fetch_add(1, std::memory_order_relaxed);
    if (self->experiment_.on_sample(range->line)) {
      tally->selected++;
    }
  }
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
