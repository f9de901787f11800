// Sums and curves for causal-profile series (see series_builder.h).
#include "analysis/series_builder.h"

#include <algorithm>
#include <cmath>

namespace coz::analysis {

void Group::add(const Observation& o) {
  experiments++;
  duration_ns += o.duration_ns;
  visits += o.visits;
  in_flight_ns += o.in_flight_ns;
  matched += o.matched;
}

double Group::value_ns(PointMetric kind) const {
  if (visits <= 0 || duration_ns <= 0) {
    return -1;
  }
  return kind == PointMetric::kThroughput ? duration_ns / visits : in_flight_ns / visits;
}

long speedup_key(double speedup) {
  return std::lround(speedup * 1000);
}

std::vector<Group> group_by_speedup(const std::vector<Observation>& obs,
                                    const std::vector<size_t>* pick) {
  std::vector<Group> groups;
  auto add = [&groups](const Observation& o) {
    auto it = std::lower_bound(groups.begin(), groups.end(), o.key,
                               [](const Group& g, long key) { return g.key < key; });
    if (it == groups.end() || it->key != o.key) {
      Group g;
      g.key = o.key;
      g.speedup = o.speedup;
      it = groups.insert(it, g);
    }
    it->add(o);
  };
  if (pick) {
    for (size_t i : *pick) {
      add(obs[i]);
    }
  } else {
    for (const Observation& o : obs) {
      add(o);
    }
  }
  return groups;
}

}  // namespace coz::analysis
