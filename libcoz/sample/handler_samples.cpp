// Samples taken in the signal handler (see handler_samples.h).
#include "sample/handler_samples.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/platform.h"

namespace coz {

uint64_t SignalTally::resolution_ns(uint64_t period_ns) const {
  uint64_t signals = signals_.load(std::memory_order_relaxed);
  uint64_t periods = periods_.load(std::memory_order_relaxed);
  return signals == 0 ? 0 : periods * period_ns / signals;
}

std::string SignalTally::describe(const char* name, uint64_t period_ns) const {
  uint64_t resolution = resolution_ns(period_ns);
  if (resolution == 0) {
    resolution = period_ns;
  }
  char text[64];
  snprintf(text, sizeof text, "%s, %.3g ms resolution", name,
           static_cast<double>(resolution) / 1e6);
  return text;
}

HandlerSamples::HandlerSamples(const SamplerSettings& settings)
    : max_depth_(std::min<size_t>(settings.max_stack, kMaxDepth)),
      max_words_(std::min<size_t>(settings.stack_bytes / 8, kMaxStackWords)) {}

bool HandlerSamples::take(const void* context, uint32_t weight, uintptr_t stack_lo,
                          uintptr_t stack_hi) {
  uint32_t head = head_.load(std::memory_order_relaxed);
  if (head - tail_.load(std::memory_order_acquire) >= kSlots) {
    lost_.fetch_add(weight, std::memory_order_relaxed);
    return false;
  }
  Slot& s = slots_[head % kSlots];
  platform::Registers r = platform::interrupted_registers(context);
  s.ip = r.ip;
  s.weight = weight;
  s.depth = 0;
  s.words = 0;
  if (stack_lo <= r.sp && r.sp < stack_hi) {
    // The words above the stack pointer, as perf copies them (for leaf library code without
    // frame pointers), then the frame-pointer chain: each frame's saved frame pointer and
    // return address, followed while they stay on this stack and move up it.
    uintptr_t from = r.sp & ~uintptr_t{7};
    s.words = std::min<size_t>(max_words_, (stack_hi - from) / 8);
    memcpy(s.stack, reinterpret_cast<const void*>(from), s.words * 8);
    for (uintptr_t fp = r.fp;
         s.depth < max_depth_ && (fp & 7) == 0 && fp >= from && fp + 16 <= stack_hi;) {
      const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(fp);
      if (frame[1] == 0) {
        break;
      }
      s.chain[s.depth++] = frame[1];
      if (frame[0] <= fp) {
        break;
      }
      fp = frame[0];
    }
  }
  head_.store(head + 1, std::memory_order_release);
  return true;
}

size_t HandlerSamples::drain(SampleVisitor visit, void* context) {
  uint32_t head = head_.load(std::memory_order_acquire);
  uint32_t tail = tail_.load(std::memory_order_relaxed);
  size_t periods = 0;
  for (; tail != head; tail++) {
    const Slot& s = slots_[tail % kSlots];
    Sample sample;
    sample.ip = s.ip;
    sample.callchain = s.chain;
    sample.depth = s.depth;
    sample.stack = s.stack;
    sample.stack_words = s.words;
    sample.weight = s.weight;
    visit(sample, context);
    periods += s.weight;
  }
  tail_.store(tail, std::memory_order_release);
  return periods;
}

}  // namespace coz
