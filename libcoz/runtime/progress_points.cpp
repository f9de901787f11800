// Registry of source-level progress points (see progress_points.h).
#include "runtime/progress_points.h"

namespace coz {

ProgressPoint* ProgressPoints::find_or_add(const char* name) {
  for (ProgressPoint& p : points_) {
    if (p.name == name) {
      return &p;
    }
  }
  ProgressPoint* point = &points_.emplace_back();
  point->name = name;
  return point;
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
      return &point->throughput;
    case PointKind::kBegin:
      mark_latency(point);
      return &point->begin;
    case PointKind::kEnd:
      mark_latency(point);
      return &point->end;
    case PointKind::kArrival:
      break;
  }
  return nullptr;
}

void ProgressPoints::mark_latency(ProgressPoint* point) {
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
  counter->point->has_arrivals = true;
  any_arrivals_.store(true, std::memory_order_release);
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

}  // namespace coz
