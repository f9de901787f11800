// Registry of source-level progress points (see progress_points.h).
#include "points/progress_points.h"

#include <sched.h>

#include <cstring>

namespace coz {

SharedPoints::Slot* SharedPoints::find_or_add(const std::string& full) {
  std::string name = full.substr(0, kMaxName);
  for (Slot& s : slots) {
    uint32_t state = s.state.load(std::memory_order_acquire);
    if (state == kFree) {
      if (!s.state.compare_exchange_strong(state, kNaming, std::memory_order_acquire)) {
        if (state == kFree) {
          continue;
        }
      } else {
        memcpy(s.name, name.data(), name.size());
        s.name[name.size()] = '\0';
        s.state.store(kReady, std::memory_order_release);
        return &s;
      }
    }
    // Named, or being named by another process: wait for the name (yielding: the namer may
    // be preempted; a namer that died leaves the slot to be skipped after a while).
    for (int i = 0; i < 1000000 && state == kNaming; i++) {
      if (i % 64 == 63) {
        sched_yield();
      }
      state = s.state.load(std::memory_order_acquire);
    }
    if (state == kReady && name == s.name) {
      return &s;
    }
  }
  return nullptr;
}

void ProgressPoints::attach_shared(SharedPoints* shared) {
  std::lock_guard<std::mutex> lock(mutex_);
  shared_ = shared;
}

ProgressPoint* ProgressPoints::find_or_add(const char* name) {
  for (ProgressPoint& p : points_) {
    if (p.name == name) {
      return &p;
    }
  }
  ProgressPoint* point = &points_.emplace_back();
  point->name = name;
  if (shared_ && (point->slot = shared_->find_or_add(point->name))) {
    point->counters = &point->slot->counters;
  }
  return point;
}

void ProgressPoints::adopt_shared() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!shared_) {
    return;
  }
  for (SharedPoints::Slot& s : shared_->slots) {
    uint32_t state = s.state.load(std::memory_order_acquire);
    if (state == SharedPoints::kFree) {
      break;  // slots are claimed in order
    }
    if (state != SharedPoints::kReady) {
      continue;
    }
    ProgressPoint* point = find_or_add(s.name);
    uint32_t flags = s.flags.load(std::memory_order_acquire);
    if (flags & SharedPoints::kLatency) {
      mark_latency(point);
    }
    if (flags & SharedPoints::kArrivals) {
      mark_arrivals(point);
    }
  }
}

void ProgressPoints::mark_arrivals(ProgressPoint* point) {
  point->has_arrivals = true;
  if (point->slot) {
    point->slot->flags.fetch_or(SharedPoints::kArrivals, std::memory_order_release);
  }
  any_arrivals_.store(true, std::memory_order_release);
}

Counter* ProgressPoints::get(int kind, const char* name) {
  if (!name || kind < static_cast<int>(PointKind::kThroughput) ||
      kind > static_cast<int>(PointKind::kEnd)) {
    return nullptr;  // arrivals are per thread: new_arrival()
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ProgressPoint* point = find_or_add(name);
  switch (static_cast<PointKind>(kind)) {
    case PointKind::kThroughput:
      return &point->throughput();
    case PointKind::kBegin:
      mark_latency(point);
      return &point->begin();
    case PointKind::kEnd:
      mark_latency(point);
      return &point->end();
    case PointKind::kArrival:
      break;
  }
  return nullptr;
}

void ProgressPoints::mark_latency(ProgressPoint* point) {
  if (point->slot) {
    point->slot->flags.fetch_or(SharedPoints::kLatency, std::memory_order_release);
  }
  if (!point->is_latency) {
    point->is_latency = true;
    point->next_latency.store(latency_head_.load(std::memory_order_relaxed),
                              std::memory_order_relaxed);
    latency_head_.store(point, std::memory_order_release);
    any_latency_.store(true, std::memory_order_release);
  }
}

ArrivalCounter* ProgressPoints::new_arrival(const char* name) {
  if (!name) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ArrivalCounter* counter = &arrivals_.emplace_back();
  counter->point = find_or_add(name);
  mark_arrivals(counter->point);
  return counter;
}

void ProgressPoints::for_each_arrival(
    const std::function<void(const ArrivalCounter&)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const ArrivalCounter& a : arrivals_) {
    visit(a);
  }
}

void ProgressPoints::for_each(const std::function<void(const ProgressPoint&)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const ProgressPoint& p : points_) {
    visit(p);
  }
}

void ProgressPoints::publish_arrivals() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (ArrivalCounter& a : arrivals_) {
    uint64_t now = __atomic_load_n(&a.counter.count, __ATOMIC_RELAXED);
    if (a.point->slot && now > a.published) {
      a.point->slot->arrivals_elsewhere.fetch_add(now - a.published, std::memory_order_relaxed);
      a.published = now;
    }
  }
}

void ProgressPoints::forget_published() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (ArrivalCounter& a : arrivals_) {
    a.published = __atomic_load_n(&a.counter.count, __ATOMIC_RELAXED);
  }
}

}  // namespace coz
