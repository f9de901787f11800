// A delay count and the experiment (epoch) it belongs to, packed into one 64-bit word so both
// change together in a single atomic store: the ledger's global total and the handoff table's
// slots. 46 bits of nanoseconds is 19.5 hours of delay in one experiment; 18 bits of epoch only
// need to tell the current experiment from recent ones. Pure and async-signal-safe.
#pragma once

#include <cstdint>

namespace coz::epoch_count {

inline constexpr int kNsBits = 46;
inline constexpr uint64_t kNsMask = (1ull << kNsBits) - 1;
inline constexpr uint64_t kEpochMask = (1ull << (64 - kNsBits)) - 1;

inline uint64_t pack(uint64_t epoch, uint64_t ns) {
  return ((epoch & kEpochMask) << kNsBits) | (ns & kNsMask);
}
inline uint64_t epoch(uint64_t word) {
  return word >> kNsBits;
}
inline uint64_t ns(uint64_t word) {
  return word & kNsMask;
}

}  // namespace coz::epoch_count
