// Layouts drawn from a seed (see layout_shift.h).
#include "layout/layout_shift.h"

#include <utility>

namespace coz::layout {
namespace {

// splitmix64: one fixed stream per seed on every platform.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The n-th draw of `seed`'s stream, below `bound` (small bounds: the bias is below 2^-40).
uint64_t draw(uint64_t seed, uint64_t n, uint64_t bound) {
  return mix(seed * 0x2545f4914f6cdd1dull + n) % bound;
}

enum Draw : uint64_t { kHeap = 1, kMap, kEnvPad, kEnvOrder, kPadPlace, kThreads = 1000 };

}  // namespace

size_t LayoutShift::thread_pad(uint64_t index) const {
  return seed == 0 ? 0 : draw(seed, kThreads + index, kMaxStackPad / kStep) * kStep;
}

LayoutShift layout_for(uint64_t seed) {
  LayoutShift l;
  l.seed = seed;
  if (seed != 0) {
    l.heap_pad = (1 + draw(seed, kHeap, kMaxHeapPad / kStep - 1)) * kStep;
    l.map_pages = draw(seed, kMap, kMaxMapPages);
    l.env_pad = draw(seed, kEnvPad, kMaxStackPad);
  }
  return l;
}

std::vector<std::string> arrange_environment(const LayoutShift& layout,
                                             std::vector<std::string> env) {
  if (layout.seed == 0) {
    return env;
  }
  // Fisher-Yates with the seed's draws.
  for (size_t k = env.size(); k > 1; k--) {
    std::swap(env[k - 1], env[draw(layout.seed, kEnvOrder * 1000003 + k, k)]);
  }
  std::string pad = std::string(kPadVariable) + "=" + std::string(layout.env_pad, 'x');
  size_t place = draw(layout.seed, kPadPlace, env.size() + 1);
  env.insert(env.begin() + static_cast<long>(place), std::move(pad));
  return env;
}

}  // namespace coz::layout
