// Intervals by bootstrap over experiments (see bootstrap.h).
#include "analysis/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace coz::analysis {

void measure_noise(Family* f) {
  std::map<std::pair<std::string, long>, std::vector<size_t>> groups;
  for (size_t i = 0; i < f->obs.size(); i++) {
    if (f->obs[i].visits > 0 && f->obs[i].matched > 0) {
      groups[{f->obs[i].key == 0 ? std::string() : f->line[i], f->obs[i].key}].push_back(i);
    }
  }
  std::vector<std::pair<double, double>> raw;  // (visits, residual)
  size_t degrees = 0;                          // independent residuals: a group of n gives n - 1
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) {
      continue;
    }
    double matched = 0, visits = 0;
    for (size_t i : members) {
      matched += f->obs[i].matched;
      visits += f->obs[i].visits;
    }
    double mean = matched / visits, n = static_cast<double>(members.size());
    degrees += members.size() - 1;
    for (size_t i : members) {
      double e = (f->obs[i].matched / f->obs[i].visits / mean - 1) * std::sqrt(n / (n - 1));
      raw.push_back({f->obs[i].visits, e});
    }
  }
  f->residuals.clear();
  if (degrees < kMinDegrees) {
    return;
  }
  std::sort(raw.begin(), raw.end());
  size_t half = raw.size() / 2;
  double log_low = 0, log_high = 0, square_low = 0, square_high = 0;
  for (size_t k = 0; k < raw.size(); k++) {
    (k < half ? log_low : log_high) += std::log(raw[k].first);
    (k < half ? square_low : square_high) += raw[k].second * raw[k].second;
  }
  double n_low = static_cast<double>(half), n_high = static_cast<double>(raw.size() - half);
  log_low /= n_low;
  log_high /= n_high;
  f->typical_visits = std::exp((log_low * n_low + log_high * n_high) / (n_low + n_high));
  f->exponent = 0;
  if (log_high - log_low > std::log(1.5) && square_low > 0 && square_high > 0) {
    double ratio = (square_high / n_high) / (square_low / n_low);
    f->exponent = std::clamp(-std::log(ratio) / (log_high - log_low), 0.0, 1.0);
  }
  for (const auto& [visits, e] : raw) {
    f->residuals.push_back(e * std::pow(visits / f->typical_visits, f->exponent / 2));
  }
  f->scale.assign(f->obs.size(), 1.0);
  for (size_t i = 0; i < f->obs.size(); i++) {
    if (f->obs[i].visits > 0) {
      f->scale[i] = std::pow(f->typical_visits / f->obs[i].visits, f->exponent / 2);
    }
  }
}

void bootstrap(const Family& f, std::vector<SeriesDraft>* drafts, const AnalysisOptions& o,
               bool matching, Rng* rng) {
  const double base_mean = f.baseline.relative();
  if (o.bootstrap == 0 || f.residuals.empty() || base_mean <= 0) {
    return;
  }
  const std::vector<size_t>& order = f.match.baselines;
  std::vector<double> drawn(f.obs.size()), prefix_cost(order.size() + 1),
      prefix_visits(order.size() + 1);
  auto draw_cost = [&](size_t i, double mean) {
    double v = f.obs[i].visits;
    return v * f.match.reference[i] * mean * std::max(0.0, 1 + f.draw(i, rng));
  };
  // The redrawn reference of experiment i (its cost per visit at its time).
  auto reference = [&](size_t i) {
    if (!matching) {
      return 1.0;
    }
    const TimeMatch::Window& w = f.match.windows[i];
    double cost = prefix_cost[w.right] - prefix_cost[w.left] - (w.self ? drawn[i] : 0);
    double visits = prefix_visits[w.right] - prefix_visits[w.left] - (w.self ? f.obs[i].visits : 0);
    // No other baseline in the window: the reference it had, at the redrawn baselines' scale.
    return visits > 0 && cost > 0 ? cost / visits : f.match.reference[i] * base_mean;
  };
  std::vector<XY> curve;
  for (size_t b = 0; b < o.bootstrap; b++) {
    for (size_t p = 0; p < order.size(); p++) {
      drawn[order[p]] = draw_cost(order[p], base_mean);
      prefix_cost[p + 1] = prefix_cost[p] + drawn[order[p]];
      prefix_visits[p + 1] = prefix_visits[p] + f.obs[order[p]].visits;
    }
    double matched = 0;
    for (size_t i : order) {
      matched += drawn[i] / reference(i);
    }
    const double base = matched / f.baseline.visits;
    if (!(base > 0)) {
      continue;
    }
    for (SeriesDraft& d : *drafts) {
      Series& s = d.series;
      curve.assign(1, XY{0, 0});
      for (size_t k = 0; k < d.groups.size(); k++) {
        double group_matched = 0;
        for (size_t i : d.members[k]) {
          group_matched += f.obs[i].visits > 0 ? draw_cost(i, d.groups[k].relative()) / reference(i)
                                               : f.obs[i].matched;
        }
        double y = program_speedup(group_matched / d.groups[k].visits, base) * s.phase_factor;
        d.at[k].push_back(y);
        curve.push_back(XY{s.curve[k + 1].line_speedup, y});
      }
      d.slopes.push_back(slope_through_origin(curve));
      d.impacts.push_back(impact(curve));
      CurveFit fit = fit_curve(curve, d.weights);
      for (size_t k = 0; k < s.predicted.size(); k++) {
        d.predicted[k].push_back(fit.at(s.predicted[k].line_speedup));
      }
    }
  }
  for (SeriesDraft& d : *drafts) {
    Series& s = d.series;
    if (d.slopes.size() * 2 < o.bootstrap) {
      continue;
    }
    for (size_t k = 0; k < d.groups.size(); k++) {
      Interval in = percentile_interval(&d.at[k], o.confidence);
      Estimate& e = s.curve[k + 1].program_speedup;
      e = Estimate{e.value, true, in.low, in.high};
    }
    for (size_t k = 0; k < s.predicted.size(); k++) {
      Interval in = percentile_interval(&d.predicted[k], o.confidence);
      Estimate& e = s.predicted[k].program_speedup;
      e = Estimate{e.value, true, in.low, in.high};
    }
    Interval si = percentile_interval(&d.slopes, o.confidence);
    Interval ii = percentile_interval(&d.impacts, o.confidence);
    s.slope = Estimate{s.slope.value, true, si.low, si.high};
    s.impact = Estimate{s.impact.value, true, ii.low, ii.high};
  }
}

}  // namespace coz::analysis
