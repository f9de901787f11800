// When a thread was lately blocked in waits a wake credits (locks, condition variables,
// semaphores, joins, barriers), as blocked time per bucket of a quarter sampling period, the last
// 32 buckets (8 periods): what the credit of a lump's periods needs (experiment/recent_lumps.h).
// A bucket read only in part counts its blocked time in proportion.
//
// Threads: the thread's own, from its hooks (added as a wait ends, read by the credit of the next
// wake; the sample handler never reads it). Pure arithmetic.
#pragma once

#include <cstdint>

namespace coz {

class RecentWaits {
 public:
  static constexpr uint64_t kBuckets = 32;

  // The thread was blocked from `start_ns` to `end_ns`.
  void add(uint64_t start_ns, uint64_t end_ns, uint64_t bucket_ns) {
    if (end_ns <= start_ns || bucket_ns == 0) {
      return;
    }
    uint64_t first = start_ns / bucket_ns, last = (end_ns - 1) / bucket_ns;
    if (last - first >= kBuckets) {
      first = last - kBuckets + 1;
    }
    for (uint64_t n = first; n <= last; n++) {
      uint64_t lo = n * bucket_ns > start_ns ? n * bucket_ns : start_ns;
      uint64_t hi = (n + 1) * bucket_ns < end_ns ? (n + 1) * bucket_ns : end_ns;
      Bucket& b = buckets_[n % kBuckets];
      if (b.number != n + 1) {
        b = Bucket{n + 1, 0};
      }
      b.blocked_ns += hi - lo;
    }
  }

  // How long the thread was blocked between `from_ns` and `to_ns`, as far as the buckets still
  // hold (older time counts as not blocked).
  uint64_t blocked_between(uint64_t from_ns, uint64_t to_ns, uint64_t bucket_ns) const {
    if (to_ns <= from_ns || bucket_ns == 0) {
      return 0;
    }
    uint64_t first = from_ns / bucket_ns, last = (to_ns - 1) / bucket_ns;
    if (last - first >= kBuckets) {
      first = last - kBuckets + 1;
    }
    uint64_t blocked = 0;
    for (uint64_t n = first; n <= last; n++) {
      const Bucket& b = buckets_[n % kBuckets];
      if (b.number != n + 1) {
        continue;
      }
      uint64_t lo = n * bucket_ns > from_ns ? n * bucket_ns : from_ns;
      uint64_t hi = (n + 1) * bucket_ns < to_ns ? (n + 1) * bucket_ns : to_ns;
      blocked += static_cast<uint64_t>(static_cast<unsigned __int128>(b.blocked_ns) * (hi - lo) /
                                       bucket_ns);
    }
    return blocked;
  }

  void clear() {
    for (Bucket& b : buckets_) {
      b = Bucket{};
    }
  }

 private:
  struct Bucket {
    uint64_t number = 0;  // the bucket's number since time 0, plus one; 0: never used
    uint64_t blocked_ns = 0;
  };
  Bucket buckets_[kBuckets];
};

}  // namespace coz
