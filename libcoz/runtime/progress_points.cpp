// Registry of source-level progress points (see progress_points.h).
#include "runtime/progress_points.h"

namespace coz {

Counter* ProgressPoints::get(int kind, const char* name) {
  if (!name || kind < static_cast<int>(PointKind::kThroughput) ||
      kind > static_cast<int>(PointKind::kEnd)) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ProgressPoint* point = nullptr;
  for (ProgressPoint& p : points_) {
    if (p.name == name) {
      point = &p;
      break;
    }
  }
  if (!point) {
    point = &points_.emplace_back();
    point->name = name;
  }
  switch (static_cast<PointKind>(kind)) {
    case PointKind::kThroughput:
      return &point->throughput;
    case PointKind::kBegin:
      point->is_latency = true;
      return &point->begin;
    case PointKind::kEnd:
      point->is_latency = true;
      return &point->end;
  }
  return nullptr;
}

void ProgressPoints::for_each(const std::function<void(const ProgressPoint&)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const ProgressPoint& p : points_) {
    visit(p);
  }
}

size_t ProgressPoints::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return points_.size();
}

}  // namespace coz
