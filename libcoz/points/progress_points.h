// Source-level progress points: the counters behind COZ_PROGRESS, COZ_BEGIN, COZ_END and
// COZ_ARRIVAL. get() hands out a stable counter per (kind, name); it is idempotent and
// thread-safe, and the counters are incremented by the program without any call into the
// runtime. Arrival counters are per thread (section 6.1.3): new_arrival() makes one for the
// calling thread's first visit to a point, and the point's arrivals are the sum over threads.
// Counters are never freed. Not for signal handlers (get() locks and allocates).
//
// Across processes (a run that follows children, runtime/shared_run.h): once attach_shared() has
// run, a point's throughput, begin and end counters live in a slot of SharedPoints, memory every
// process of the run maps, found by name; a worker's COZ_PROGRESS adds to the same count as the
// master's. adopt_shared() makes the points only other processes have visited known here (the
// root's experiments count them). Arrivals stay per process (counted where they arrive).
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
  uint64_t published = 0;  // of `counter`, added to the point's shared slot (publish_arrivals)
};

// A point's counts, in the process (before attach_shared()) or in shared memory.
struct PointCounters {
  Counter throughput{0, 0};  // COZ_PROGRESS visits
  Counter begin{0, 0};       // COZ_BEGIN visits (arrivals)
  Counter end{0, 0};         // COZ_END visits (departures)
  // Latency points: the delay inserted while requests were in flight, weighted by how many
  // were (request-nanoseconds).
  std::atomic<uint64_t> delay_in_flight_ns{0};
};

// The points of a run, by name, in memory every process of it maps. Lock-free: a slot is claimed
// by compare-and-swap and named before it is marked ready; slots are never freed.
struct SharedPoints {
  static constexpr size_t kSlots = 256;
  static constexpr size_t kMaxName = 240;  // longer names are cut (alike in every process)
  enum : uint32_t { kFree = 0, kNaming = 1, kReady = 2 };
  enum : uint32_t { kLatency = 1, kArrivals = 2 };
  struct Slot {
    std::atomic<uint32_t> state{kFree};
    std::atomic<uint32_t> flags{0};
    char name[kMaxName + 1] = {};
    PointCounters counters;
    // Arrivals counted by processes other than the root, as they publish them: arrival counters
    // are per thread, in each process (the pacing of load amplification reads its own).
    std::atomic<uint64_t> arrivals_elsewhere{0};
  };
  Slot slots[kSlots];

  // The slot named `name`, claimed if new; nullptr when every slot is taken.
  Slot* find_or_add(const std::string& name);
};

struct ProgressPoint {
  std::string name;
  PointCounters* counters = &own;  // `own`, or a shared slot's
  PointCounters own;
  SharedPoints::Slot* slot = nullptr;  // the shared slot, if any
  bool is_latency = false;             // has BEGIN or END
  bool has_arrivals = false;           // has COZ_ARRIVAL (or a BEGIN counted as one)
  // The next latency point (a list safe for signal handlers).
  std::atomic<ProgressPoint*> next_latency{nullptr};

  Counter& throughput() const { return counters->throughput; }
  Counter& begin() const { return counters->begin; }
  Counter& end() const { return counters->end; }
  std::atomic<uint64_t>& delay_in_flight_ns() const { return counters->delay_in_flight_ns; }
  uint64_t read(const Counter& c) const { return __atomic_load_n(&c.count, __ATOMIC_ACQUIRE); }
  // Arrivals and departures as at one instant: departures read on both sides of the arrivals
  // until they agree, so a request that ends between the two reads is not a departure without its
  // arrival. After a few tries (a thread of the reader preempted between them) the last reads.
  void read_latency(uint64_t* begun, uint64_t* ended) const {
    uint64_t first = read(end());
    for (int tries = 0; tries < 8; tries++) {
      *begun = read(begin());
      *ended = read(end());
      if (*ended == first) {
        return;
      }
      first = *ended;
    }
  }
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
  // From now on, new points count in `shared` (memory every process of the run maps).
  void attach_shared(SharedPoints* shared);
  // Makes the points other processes of the run added known here, and their kinds (latency,
  // arrivals) as any process has marked them.
  void adopt_shared();
  // A child's arrivals since the last call, added to their points' shared slots (the root reads
  // them with its own: arrivals_elsewhere). From a child's profiler thread and its shut-down.
  void publish_arrivals();
  // In a forked child: the arrivals counted so far are the parent's, not to be published.
  void forget_published();

  // Held across fork() (Runtime::before_fork): a forked child goes on adding points.
  void before_fork() const { mutex_.lock(); }
  void after_fork() const { mutex_.unlock(); }

  bool any_arrivals() const { return any_arrivals_.load(std::memory_order_acquire); }
  bool any_latency() const { return any_latency_.load(std::memory_order_acquire); }
  // The first latency point; follow next_latency. Lock-free, async-signal-safe.
  ProgressPoint* latency_points() const { return latency_head_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mutex_;
  ProgressPoint* find_or_add(const char* name);  // with mutex_ held
  void mark_arrivals(ProgressPoint* point);      // with mutex_ held
  SharedPoints* shared_ = nullptr;
  std::deque<ProgressPoint> points_;  // stable addresses
  std::deque<ArrivalCounter> arrivals_;
  std::atomic<bool> any_arrivals_{false};
  std::atomic<bool> any_latency_{false};
  std::atomic<ProgressPoint*> latency_head_{nullptr};
  void mark_latency(ProgressPoint* point);  // with mutex_ held
};

}  // namespace coz
