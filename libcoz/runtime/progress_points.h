// Source-level progress points: the counters behind COZ_PROGRESS, COZ_BEGIN and COZ_END.
// get() hands out a stable counter per (kind, name); it is idempotent and thread-safe, and the
// counters are incremented by the program without any call into the runtime. Not for signal
// handlers (get() locks and allocates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

namespace coz {

// Layout shared with coz.h's coz_counter_t.
struct Counter {
  size_t count;
  size_t backoff;
};

enum class PointKind { kThroughput = 1, kBegin = 2, kEnd = 3 };

struct ProgressPoint {
  std::string name;
  Counter throughput{0, 0};  // COZ_PROGRESS visits
  Counter begin{0, 0};       // COZ_BEGIN visits (arrivals)
  Counter end{0, 0};         // COZ_END visits (departures)
  bool is_latency = false;   // has BEGIN or END

  uint64_t read(const Counter& c) const { return __atomic_load_n(&c.count, __ATOMIC_RELAXED); }
};

class ProgressPoints {
 public:
  // The counter for `kind` of the point `name`, or nullptr for an unknown kind or null name.
  Counter* get(int kind, const char* name);
  void for_each(const std::function<void(const ProgressPoint&)>& visit) const;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::deque<ProgressPoint> points_;  // stable addresses
};

}  // namespace coz
