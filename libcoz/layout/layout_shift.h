// One layout of a program's memory for `coz compare`, drawn from a seed: how far the runtime moves
// the heap, the memory-mapping area and each thread's stack, and how `coz compare` pads and
// orders the environment (which moves the main thread's stack). The same seed gives the same
// layout in every process, so a run can be repeated at its layout (with address-space
// randomisation off) and runs at different layouts tell the layout's share of the variation
// from the machine's.
// Pure: no clock, no global state; a splitmix64 stream of the seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace coz::layout {

// Offsets are multiples of 16 bytes: what malloc and the x86-64 ABI keep (a program's own
// alignment stays), below a page and a bit so every offset within a page is reached.
inline constexpr size_t kStep = 16;
inline constexpr size_t kMaxStackPad = 8192;  // bytes: main stack (environment) and threads
inline constexpr size_t kMaxHeapPad = 16384;  // bytes held by malloc before the program's first
inline constexpr size_t kMaxMapPages = 256;   // pages reserved before the program's own mmaps

struct LayoutShift {
  uint64_t seed = 0;
  size_t heap_pad = 0;   // bytes, a multiple of kStep
  size_t map_pages = 0;  // whole pages
  size_t env_pad = 0;    // bytes of one padding variable's value
  // The stack offset of the program's `index`-th thread (1 for its first pthread_create):
  // a multiple of kStep below kMaxStackPad.
  size_t thread_pad(uint64_t index) const;
};

// The layout for `seed`; seed 0 is no shift at all (every offset 0).
LayoutShift layout_for(uint64_t seed);

// `env` ("NAME=value" entries) in the layout's order: a permutation drawn from the seed, with the
// padding variable (kPadVariable, env_pad bytes) added at a drawn position. Seed 0: unchanged.
inline constexpr const char* kPadVariable = "COZ_LAYOUT_PAD";
std::vector<std::string> arrange_environment(const LayoutShift& layout,
                                             std::vector<std::string> env);

}  // namespace coz::layout
