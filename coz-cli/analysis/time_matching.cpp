// Baselines matched in time (see time_matching.h).
#include "analysis/time_matching.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace coz::analysis {
namespace {

bool usable_baseline(const TimedCost& e) {
  return e.baseline && e.visits > 0 && e.cost > 0;
}

// The usable baselines, by time.
std::vector<size_t> baselines_by_time(const std::vector<TimedCost>& experiments) {
  std::vector<size_t> base;
  for (size_t i = 0; i < experiments.size(); i++) {
    if (usable_baseline(experiments[i])) {
      base.push_back(i);
    }
  }
  std::stable_sort(base.begin(), base.end(), [&](size_t a, size_t b) {
    return experiments[a].time_ns < experiments[b].time_ns;
  });
  return base;
}

// The `k` baselines nearest experiment i in time, as a window of `base` (which holds i itself
// when i is a baseline; it then takes one more place and is left out of the pool). The window's
// left end by binary search, as for the k nearest of any sorted values: O(log n).
TimeMatch::Window nearest(const std::vector<TimedCost>& experiments,
                          const std::vector<size_t>& base, size_t i, size_t k) {
  const double t = experiments[i].time_ns;
  auto time_at = [&](size_t p) { return experiments[base[p]].time_ns; };
  TimeMatch::Window w;
  w.self = usable_baseline(experiments[i]);
  const size_t n = base.size();
  const size_t places = std::min(n, k + (w.self ? 1 : 0));
  size_t at = static_cast<size_t>(
      std::lower_bound(base.begin(), base.end(), t,
                       [&](size_t b, double v) { return experiments[b].time_ns < v; }) -
      base.begin());
  size_t low = at > places ? at - places : 0, high = std::min(at, n - places);
  while (low < high) {  // is the window starting at mid worse than the one after it?
    size_t mid = (low + high) / 2;
    if (t - time_at(mid) > time_at(mid + places) - t) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  w.left = low;
  w.right = low + places;
  // Equal times: i itself may sit just outside the window; then the window holds k others.
  if (w.self) {
    w.self = false;
    for (size_t p = w.left; p < w.right && !w.self; p++) {
      w.self = base[p] == i;
    }
    if (!w.self && w.right - w.left > k) {
      w.right--;
    }
  }
  return w;
}

// Running sums of the baselines' costs and visits in time order, for any window's pool in O(1).
struct Prefix {
  std::vector<double> cost{0}, visits{0};
  Prefix(const std::vector<TimedCost>& experiments, const std::vector<size_t>& base) {
    for (size_t b : base) {
      cost.push_back(cost.back() + experiments[b].cost);
      visits.push_back(visits.back() + experiments[b].visits);
    }
  }
  // Cost and visits of the window less i itself.
  std::pair<double, double> pool(const std::vector<TimedCost>& experiments,
                                 const TimeMatch::Window& w, size_t i) const {
    double c = cost[w.right] - cost[w.left], v = visits[w.right] - visits[w.left];
    if (w.self) {
      c -= experiments[i].cost;
      v -= experiments[i].visits;
    }
    return {c, v};
  }
};

}  // namespace

size_t choose_neighbours(const std::vector<TimedCost>& experiments) {
  std::vector<size_t> base = baselines_by_time(experiments);
  if (base.size() < 3) {
    return base.size();
  }
  const size_t all = base.size() - 1;
  const Prefix sums(experiments, base);
  size_t best = all;
  double best_error = INFINITY;
  std::vector<size_t> candidates;
  for (size_t k = 4; k < all && k <= 256; k *= 2) {
    candidates.push_back(k);
  }
  candidates.push_back(all);
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {  // larger k first: ties
    double error = 0;
    for (size_t i : base) {
      auto [cost, visits] = sums.pool(experiments, nearest(experiments, base, i, *it), i);
      if (visits <= 0 || cost <= 0) {
        continue;
      }
      double relative = experiments[i].cost / experiments[i].visits / (cost / visits) - 1;
      error += experiments[i].visits * relative * relative;
    }
    if (error < best_error * (1 - 1e-9)) {
      best_error = error;
      best = *it;
    }
  }
  return best;
}

TimeMatch match_in_time(const std::vector<TimedCost>& experiments, size_t k, bool enabled) {
  TimeMatch m;
  m.baselines = baselines_by_time(experiments);
  m.k = k;
  m.reference.assign(experiments.size(), 1.0);
  m.windows.resize(experiments.size());
  if (m.baselines.empty() || k == 0) {
    return m;
  }
  const Prefix sums(experiments, m.baselines);
  for (size_t i = 0; i < experiments.size(); i++) {
    m.windows[i] = nearest(experiments, m.baselines, i, k);
    auto [cost, visits] = sums.pool(experiments, m.windows[i], i);
    if (!enabled) {
      continue;
    }
    if (visits > 0 && cost > 0) {
      m.reference[i] = cost / visits;
    } else if (usable_baseline(experiments[i])) {  // the only baseline: its own reference
      m.reference[i] = experiments[i].cost / experiments[i].visits;
    } else {
      m.reference[i] = 1;
    }
  }
  return m;
}

namespace {

// Ranks 0..n-1 of `v` (ties broken by position: the data are continuous).
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t k = 0; k < order.size(); k++) {
    r[order[k]] = static_cast<double>(k);
  }
  return r;
}

// Visits-weighted cost per visit of experiments[idx].
double pooled(const std::vector<TimedCost>& experiments, const std::vector<size_t>& idx) {
  double cost = 0, visits = 0;
  for (size_t i : idx) {
    cost += experiments[i].cost;
    visits += experiments[i].visits;
  }
  return visits > 0 ? cost / visits : 0;
}

}  // namespace

BaselineTrend baseline_trend(const std::vector<TimedCost>& experiments,
                             const std::vector<double>& reference,
                             const std::vector<double>& lengths, size_t rounds, Rng* rng) {
  BaselineTrend t;
  std::vector<size_t> base;
  for (size_t i = 0; i < experiments.size(); i++) {
    if (experiments[i].baseline && experiments[i].visits > 0 && experiments[i].cost > 0) {
      base.push_back(i);
    }
  }
  t.baselines = base.size();
  if (base.size() < 6) {
    return t;
  }
  std::stable_sort(base.begin(), base.end(), [&](size_t a, size_t b) {
    return experiments[a].time_ns < experiments[b].time_ns;
  });
  size_t third = base.size() / 3;
  t.early = pooled(experiments, std::vector<size_t>(base.begin(), base.begin() + third));
  t.late = pooled(experiments, std::vector<size_t>(base.end() - third, base.end()));
  t.change = t.early > 0 ? t.late / t.early - 1 : 0;

  // Spearman's rank correlation of time against cost per visit, and how often shuffled times
  // correlate as strongly.
  std::vector<double> times, costs;
  for (size_t i : base) {
    times.push_back(experiments[i].time_ns);
    costs.push_back(experiments[i].cost / experiments[i].visits);
  }
  std::vector<double> rt = ranks(times), rc = ranks(costs);
  auto correlation = [&rc](const std::vector<double>& r) {
    double sum = 0;
    for (size_t k = 0; k < r.size(); k++) {
      sum += r[k] * rc[k];
    }
    return sum;
  };
  double mean = (static_cast<double>(rt.size()) - 1) / 2;
  double centre = mean * mean * static_cast<double>(rt.size());
  double measured = std::fabs(correlation(rt) - centre) * (1 - 1e-9);
  size_t extreme = 0;
  for (size_t r = 0; r < rounds; r++) {
    for (size_t k = rt.size() - 1; k > 0; k--) {
      std::swap(rt[k], rt[rng->below(k + 1)]);
    }
    extreme += std::fabs(correlation(rt) - centre) >= measured;
  }
  t.p_value = (static_cast<double>(extreme) + 1) / (static_cast<double>(rounds) + 1);

  // Length: matched costs (cost over reference) of long against short baselines.
  std::vector<double> sorted_lengths;
  for (size_t i : base) {
    sorted_lengths.push_back(lengths[i]);
  }
  std::sort(sorted_lengths.begin(), sorted_lengths.end());
  double median = sorted_lengths[sorted_lengths.size() / 2];
  double long_cost = 0, long_visits = 0, short_cost = 0, short_visits = 0;
  for (size_t i : base) {
    double matched = experiments[i].cost / reference[i];
    if (lengths[i] >= median) {
      long_cost += matched;
      long_visits += experiments[i].visits;
    } else {
      short_cost += matched;
      short_visits += experiments[i].visits;
    }
  }
  if (long_visits > 0 && short_visits > 0 && short_cost > 0) {
    t.length_effect = (long_cost / long_visits) / (short_cost / short_visits) - 1;
  }
  return t;
}

}  // namespace coz::analysis
