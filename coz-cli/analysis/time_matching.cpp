// Baselines matched in time (see time_matching.h).
#include "analysis/time_matching.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "analysis/parallel.h"

namespace coz::analysis {
namespace {

bool usable_baseline(const TimedCost& e) {
  return e.baseline && e.visits > 0 && e.cost > 0;
}

// The usable baselines, by time on `clock`.
std::vector<size_t> baselines_by_time(const std::vector<TimedCost>& experiments, Clock clock) {
  std::vector<size_t> base;
  for (size_t i = 0; i < experiments.size(); i++) {
    if (usable_baseline(experiments[i])) {
      base.push_back(i);
    }
  }
  std::stable_sort(base.begin(), base.end(), [&](size_t a, size_t b) {
    return time_on(clock, experiments[a]) < time_on(clock, experiments[b]);
  });
  return base;
}

// The `k` baselines nearest experiment i in time, as a window of `base` (which holds i itself
// when i is a baseline; it then takes one more place and is left out of the pool). The window's
// left end by binary search, as for the k nearest of any sorted values: O(log n). `position`:
// each baseline's place in `base`.
TimeMatch::Window nearest(const std::vector<TimedCost>& experiments,
                          const std::vector<size_t>& base, const std::vector<size_t>& position,
                          Clock clock, size_t i, size_t k) {
  const double t = time_on(clock, experiments[i]);
  auto time_at = [&](size_t p) { return time_on(clock, experiments[base[p]]); };
  TimeMatch::Window w;
  w.self = usable_baseline(experiments[i]);
  const size_t n = base.size();
  const size_t places = std::min(n, k + (w.self ? 1 : 0));
  size_t at = static_cast<size_t>(
      std::lower_bound(base.begin(), base.end(), t,
                       [&](size_t b, double v) { return time_on(clock, experiments[b]) < v; }) -
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
    w.self = position[i] >= w.left && position[i] < w.right;
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

// Each baseline's place in `base` (others: past the end).
std::vector<size_t> positions(size_t experiments, const std::vector<size_t>& base) {
  std::vector<size_t> position(experiments, base.size());
  for (size_t p = 0; p < base.size(); p++) {
    position[base[p]] = p;
  }
  return position;
}

}  // namespace

Matching choose_matching(const std::vector<TimedCost>& experiments) {
  struct Candidate {
    Matching matching;
    double error = 0;     // sum over baselines of visits x squared relative error
    double standard = 0;  // its standard error
  };
  std::vector<Candidate> candidates;  // simplest first: all baselines, then fewer; run clock first
  struct ClockData {
    Clock clock;
    std::vector<size_t> base;
    std::vector<size_t> position;
  };
  std::vector<ClockData> clocks;
  std::vector<size_t> clock_of;  // per candidate: its index in `clocks`
  for (Clock clock : {Clock::kRun, Clock::kProfile}) {
    std::vector<size_t> base = baselines_by_time(experiments, clock);
    if (base.size() < 3) {
      return Matching{Clock::kRun, base.size()};
    }
    const size_t all = base.size();  // every baseline (less itself, for a baseline)
    std::vector<size_t> ks{all};
    for (size_t k = 256; k >= 4; k /= 2) {
      if (k < all) {
        ks.push_back(k);
      }
    }
    for (size_t k : ks) {
      if (clock == Clock::kProfile && k == all) {
        continue;  // every baseline is every baseline on either clock
      }
      candidates.push_back(Candidate{Matching{clock, k}, 0, 0});
      clock_of.push_back(clocks.size());
    }
    std::vector<size_t> position = positions(experiments.size(), base);
    clocks.push_back(ClockData{clock, std::move(base), std::move(position)});
  }
  std::vector<Prefix> sums;
  for (const ClockData& d : clocks) {
    sums.emplace_back(experiments, d.base);
  }
  // Each candidate's cross-validation on its own, on every core.
  parallel_for(candidates.size(), [&](size_t j) {
    const ClockData& d = clocks[clock_of[j]];
    Candidate& c = candidates[j];
    std::vector<double> terms;
    for (size_t i : d.base) {
      auto [cost, visits] = sums[clock_of[j]].pool(
          experiments, nearest(experiments, d.base, d.position, d.clock, i, c.matching.k), i);
      if (visits > 0 && cost > 0) {
        double relative = experiments[i].cost / experiments[i].visits / (cost / visits) - 1;
        terms.push_back(experiments[i].visits * relative * relative);
      }
    }
    for (double t : terms) {
      c.error += t;
    }
    double mean = terms.empty() ? 0 : c.error / static_cast<double>(terms.size()), squares = 0;
    for (double t : terms) {
      squares += (t - mean) * (t - mean);
    }
    c.standard = std::sqrt(squares);  // sqrt(n var): the standard error of the sum
  });
  std::stable_sort(
      candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.matching.k > b.matching.k;  // the run's clock first at equal k (stable)
      });
  const Candidate* best = &candidates[0];
  for (const Candidate& c : candidates) {
    best = c.error < best->error ? &c : best;
  }
  // The one-standard-error rule: the simplest window whose error is within one standard error
  // of the best, so noise alone does not narrow the window (a narrower one adds noise).
  for (const Candidate& c : candidates) {
    if (c.error <= best->error + best->standard) {
      return c.matching;
    }
  }
  return best->matching;
}

TimeMatch match_in_time(const std::vector<TimedCost>& experiments, Matching matching,
                        bool enabled) {
  TimeMatch m;
  m.matching = matching;
  m.baselines = baselines_by_time(experiments, matching.clock);
  m.reference.assign(experiments.size(), 1.0);
  m.windows.resize(experiments.size());
  if (m.baselines.empty() || matching.k == 0) {
    return m;
  }
  const Prefix sums(experiments, m.baselines);
  const std::vector<size_t> position = positions(experiments.size(), m.baselines);
  // Each experiment's window and reference on its own, in blocks on every core.
  constexpr size_t kBlock = 4096;
  parallel_for((experiments.size() + kBlock - 1) / kBlock, [&](size_t block) {
    for (size_t i = block * kBlock; i < std::min(experiments.size(), (block + 1) * kBlock); i++) {
      m.windows[i] = nearest(experiments, m.baselines, position, matching.clock, i, matching.k);
      auto [cost, visits] = sums.pool(experiments, m.windows[i], i);
      if (!enabled) {
        continue;
      }
      if (visits > 0 && cost > 0) {
        m.reference[i] = cost / visits;
      } else if (usable_baseline(experiments[i])) {  // the only baseline: its own reference
        m.reference[i] = experiments[i].cost / experiments[i].visits;
      }
    }
  });
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

// Permutation p-value of Spearman's rank correlation between `x` and `y`.
double rank_correlation_p(const std::vector<double>& x, const std::vector<double>& y, size_t rounds,
                          Rng* rng) {
  std::vector<double> rx = ranks(x), ry = ranks(y);
  auto sum = [&ry](const std::vector<double>& r) {
    double s = 0;
    for (size_t k = 0; k < r.size(); k++) {
      s += r[k] * ry[k];
    }
    return s;
  };
  double mean = (static_cast<double>(rx.size()) - 1) / 2;
  double centre = mean * mean * static_cast<double>(rx.size());
  double measured = std::fabs(sum(rx) - centre) * (1 - 1e-9);
  size_t extreme = 0;
  const Shuffler shuffler(rx.size());
  for (size_t r = 0; r < rounds; r++) {
    shuffler.shuffle(&rx, rng);
    extreme += std::fabs(sum(rx) - centre) >= measured;
  }
  return (static_cast<double>(extreme) + 1) / (static_cast<double>(rounds) + 1);
}

}  // namespace

namespace {

// The baselines of runs with two or more, in time order: their times in the run, and each one's
// cost per visit relative to its run's baselines.
struct WithinRuns {
  std::vector<double> times, relative;
};

WithinRuns within_runs(const std::vector<TimedCost>& experiments, const std::vector<size_t>& base) {
  std::map<size_t, std::pair<double, double>> per_run;  // run -> (cost, visits)
  for (size_t i : base) {
    per_run[experiments[i].run].first += experiments[i].cost;
    per_run[experiments[i].run].second += experiments[i].visits;
  }
  WithinRuns w;
  for (size_t i : base) {
    auto [cost, visits] = per_run[experiments[i].run];
    if (visits > experiments[i].visits) {
      w.times.push_back(experiments[i].run_time_ns);
      w.relative.push_back(experiments[i].cost / experiments[i].visits / (cost / visits));
    }
  }
  return w;
}

constexpr size_t kTrendMinBaselines = 6;

}  // namespace

uint64_t baseline_trend_draws(const std::vector<TimedCost>& experiments, size_t rounds) {
  size_t n = within_runs(experiments, baselines_by_time(experiments, Clock::kRun)).times.size();
  return n >= kTrendMinBaselines ? static_cast<uint64_t>(rounds) * (n - 1) : 0;
}

BaselineTrend baseline_trend(const std::vector<TimedCost>& experiments,
                             const std::vector<double>& reference,
                             const std::vector<double>& lengths, size_t rounds, Rng* rng) {
  BaselineTrend t;
  std::vector<size_t> base = baselines_by_time(experiments, Clock::kRun);
  t.baselines = base.size();
  double all_cost = 0, all_visits = 0;
  for (size_t i : base) {
    all_cost += experiments[i].cost;
    all_visits += experiments[i].visits;
  }
  // Each baseline relative to its run's baselines.
  WithinRuns within = within_runs(experiments, base);
  const std::vector<double>& times = within.times;
  const std::vector<double>& relative = within.relative;
  if (times.size() >= kTrendMinBaselines) {
    const size_t third = times.size() / 3;
    auto mean = [&relative](size_t from, size_t to) {
      return std::accumulate(relative.begin() + static_cast<long>(from),
                             relative.begin() + static_cast<long>(to), 0.0) /
             static_cast<double>(to - from);
    };
    const double overall = all_cost / all_visits;
    t.early = overall * mean(0, third);
    t.late = overall * mean(times.size() - third, times.size());
    t.change = t.early > 0 ? t.late / t.early - 1 : 0;
    t.p_value = rank_correlation_p(times, relative, rounds, rng);
  }

  // Length: matched costs (cost over reference) of long against short baselines.
  if (base.size() >= 2) {
    std::vector<double> sorted_lengths;
    for (size_t i : base) {
      sorted_lengths.push_back(lengths[i]);
    }
    std::sort(sorted_lengths.begin(), sorted_lengths.end());
    double median = sorted_lengths[sorted_lengths.size() / 2];
    double long_cost = 0, long_visits = 0, short_cost = 0, short_visits = 0;
    for (size_t i : base) {
      double matched = experiments[i].cost / reference[i];
      (lengths[i] >= median ? long_cost : short_cost) += matched;
      (lengths[i] >= median ? long_visits : short_visits) += experiments[i].visits;
    }
    if (long_visits > 0 && short_visits > 0 && short_cost > 0) {
      t.length_effect = (long_cost / long_visits) / (short_cost / short_visits) - 1;
    }
  }
  return t;
}

}  // namespace coz::analysis
