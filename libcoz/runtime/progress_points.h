// Source-level progress points: the counters behind COZ_PROGRESS, COZ_BEGIN, COZ_END and
// COZ_ARRIVAL. get() hands out a stable counter per (kind, name); it is idempotent and
// thread-safe, and the counters are incremented by the program without any call into the
// runtime. Arrival counters are per thread (section 6.1.3): new_arrival() makes one for the
// calling thread's first visit to a point, and the point's arrivals are the sum over threads.
// Counters are never freed. Not for signal handlers (get() locks and allocates).
#pragma once

#include <atomic>
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

enum class PointKind { kThroughput = 1, kBegin = 2, kEnd = 3, kArrival = 4 };

struct ProgressPoint;

// One thread's arrivals at one point.
struct ArrivalCounter {
  Counter counter{0, 0};
  ProgressPoint* point = nullptr;
  ArrivalCounter* next_in_thread = nullptr;  // the owning thread's list (see ThreadState)
};

struct ProgressPoint {
  std::string name;
  Counter throughput{0, 0};   // COZ_PROGRESS visits
  Counter begin{0, 0};        // COZ_BEGIN visits (arrivals)
  Counter end{0, 0};          // COZ_END visits (departures)
  bool is_latency = false;    // has BEGIN or END
  bool has_arrivals = false;  // has COZ_ARRIVAL (or a BEGIN counted as one)
  // Latency points: the delay inserted while requests were in flight, weighted by how many
  // were (request-nanoseconds), and the next latency point (a list safe for signal handlers).
  std::atomic<uint64_t> delay_in_flight_ns{0};
  std::atomic<ProgressPoint*> next_latency{nullptr};

  uint64_t read(const Counter& c) const { return __atomic_load_n(&c.count, __ATOMIC_RELAXED); }
};

class ProgressPoints {
 public:
  // The counter for `kind` of the point `name`, or nullptr for an unknown kind or null name.
  Counter* get(int kind, const char* name);
  // A new per-thread arrival counter for the point `name` (nullptr for a null name).
  ArrivalCounter* new_arrival(const char* name);
  void for_each(const std::function<void(const ProgressPoint&)>& visit) const;
  // Total arrivals per point, over every thread that ever visited it.
  void for_each_arrival(const std::function<void(const ArrivalCounter&)>& visit) const;
  bool any_arrivals() const { return any_arrivals_.load(std::memory_order_acquire); }
  bool any_latency() const { return any_latency_.load(std::memory_order_acquire); }
  // The first latency point; follow next_latency. Lock-free, async-signal-safe.
  ProgressPoint* latency_points() const { return latency_head_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mutex_;
  ProgressPoint* find_or_add(const char* name);  // with mutex_ held
  std::deque<ProgressPoint> points_;             // stable addresses
  std::deque<ArrivalCounter> arrivals_;
  std::atomic<bool> any_arrivals_{false};
  std::atomic<bool> any_latency_{false};
  std::atomic<ProgressPoint*> latency_head_{nullptr};
  void mark_latency(ProgressPoint* point);  // with mutex_ held
};

}  // namespace coz
