// Builds the causal profile from experiments (see causal_profile.h).
#include "analysis/causal_profile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/diagnosis.h"
#include "analysis/scalability.h"
#include "analysis/series_builder.h"
#include "analysis/statistics.h"

namespace coz::analysis {
namespace {

struct SeriesKey {
  std::string line;
  std::string point;
  PointMetric kind;
  LoadLevel level;
  bool operator<(const SeriesKey& o) const {
    if (line != o.line)
      return line < o.line;
    if (point != o.point)
      return point < o.point;
    if (kind != o.kind)
      return kind < o.kind;
    return level < o.level;
  }
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h = (h ^ c) * 1099511628211ull;
  }
  return h;
}

// Eq. 5.6 and 5.8: t_A ~ s * t_obs / s_obs, and the correction factor is t_A / T, over the runs
// that ended normally (their runtime and sample totals are known). Lines without that data are
// left out: their factor is 1 and they are marked uncorrected.
std::map<std::string, double> phase_factors(const ProfileData& data) {
  struct Acc {
    double t_obs = 0;
    double s_obs = 0;
    std::set<size_t> runs;
  };
  std::map<std::string, Acc> acc;
  for (const Experiment& e : data.experiments()) {
    if (!data.runs()[e.run].has_runtime) {
      continue;
    }
    Acc& a = acc[e.line.name];
    a.t_obs += e.elapsed_ns;
    a.s_obs += e.selected_samples;
    a.runs.insert(e.run);
  }
  std::map<std::string, double> factors;
  for (const auto& [line, a] : acc) {
    double s = 0, total = 0;
    for (size_t r : a.runs) {
      const Run& run = data.runs()[r];
      auto it = run.samples.find(line);
      s += it == run.samples.end() ? 0 : it->second;
      total += run.runtime_ns;
    }
    if (a.s_obs > 0 && s > 0 && total > 0) {
      // Samples are Poisson: correct only when even the fewest samples the experiments could
      // plausibly have seen (95%, one-sided) put the line's active share below the whole run.
      // Otherwise a line active all run long would be scaled down by sampling noise alone.
      double estimate = a.t_obs / a.s_obs * s / total;
      double fewest = a.s_obs - 1.645 * std::sqrt(a.s_obs);
      double highest = fewest > 0 ? a.t_obs / fewest * s / total : INFINITY;
      factors[line] = highest >= 1 ? 1.0 : estimate;
    }
  }
  return factors;
}

// Permutation test of "the line's speedup makes no difference to the program": the ordinary
// least-squares slope of each experiment's own progress rate (visits per ns, or the inverse of
// its mean latency) against its line speedup, compared with the slopes after shuffling the
// speedups among the experiments. Exact under that null for any number of experiments.
double slope_permutation_p(PointMetric kind, const std::vector<Observation>& obs, size_t rounds,
                           Rng* rng) {
  std::vector<double> xs, rates;
  for (const Observation& o : obs) {
    double denominator = kind == PointMetric::kThroughput ? o.duration_ns : o.in_flight_ns;
    if (denominator > 0 && (kind == PointMetric::kThroughput || o.visits > 0)) {
      xs.push_back(o.speedup);
      rates.push_back(o.visits / denominator);
    }
  }
  if (xs.size() < 3) {
    return 1;
  }
  double mean_rate = 0;
  for (double r : rates) {
    mean_rate += r;
  }
  mean_rate /= static_cast<double>(rates.size());
  auto ols_slope = [&](const std::vector<double>& x) {
    double mean_x = 0;
    for (double v : x) {
      mean_x += v;
    }
    mean_x /= static_cast<double>(x.size());
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < x.size(); i++) {
      sxy += (x[i] - mean_x) * (rates[i] - mean_rate);
      sxx += (x[i] - mean_x) * (x[i] - mean_x);
    }
    return sxx > 0 ? sxy / sxx : 0;
  };
  const double measured = std::fabs(ols_slope(xs)) * (1 - 1e-9);
  if (measured == 0) {
    return 1;
  }
  size_t extreme = 0;
  for (size_t r = 0; r < rounds; r++) {
    for (size_t i = xs.size() - 1; i > 0; i--) {
      std::swap(xs[i], xs[rng->below(i + 1)]);
    }
    extreme += std::fabs(ols_slope(xs)) >= measured;
  }
  return (static_cast<double>(extreme) + 1) / (static_cast<double>(rounds) + 1);
}

// The fitted curve's weights: each point's experiments (the baseline's do not enter the fit).
std::vector<double> fit_weights(const Series& s) {
  std::vector<double> w;
  for (const CurvePoint& p : s.curve) {
    w.push_back(static_cast<double>(p.experiments));
  }
  return w;
}

// kPredictedSpeedups up to the largest line speedup measured, from `fit`.
void predict(Series* s, const CurveFit& fit) {
  s->predicted.clear();
  double largest = s->curve.empty() ? 0 : s->curve.back().line_speedup;
  for (double x : kPredictedSpeedups) {
    if (x <= largest + 1e-9) {
      s->predicted.push_back(Prediction{x, Estimate{fit.at(x), false, 0, 0}});
    }
  }
}

// Bootstrap over experiments, by residuals: each experiment's period (or latency) relative to its
// speedup's mean is a residual; residuals pooled over the series are drawn again for every
// experiment, keeping each speedup's experiments and weights. With the profiler's random design
// most speedups have one to three experiments, too few to resample on their own (a percentile
// interval from two experiments covers the truth far less often than it claims), while the
// noise of an experiment hardly depends on the speedup. Gives intervals for every curve point,
// the slope and the impact; none when no speedup has two experiments.
void bootstrap(Series* s, const std::vector<Observation>& obs, const std::vector<Group>& groups,
               const AnalysisOptions& o, Rng rng) {
  if (o.bootstrap == 0) {
    return;
  }
  s->p_value = slope_permutation_p(s->kind, obs, o.bootstrap, &rng);
  const bool tput = s->kind == PointMetric::kThroughput;
  auto cost = [tput](const Observation& e) { return tput ? e.duration_ns : e.in_flight_ns; };
  std::vector<double> mean(groups.size());
  for (size_t g = 0; g < groups.size(); g++) {
    mean[g] = groups[g].value_ns(s->kind);
  }
  std::vector<size_t> group_of(obs.size());
  std::vector<double> residuals;
  for (size_t i = 0; i < obs.size(); i++) {
    while (groups[group_of[i]].key != obs[i].key) {
      group_of[i]++;
    }
    const Group& g = groups[group_of[i]];
    if (g.experiments >= 2 && obs[i].visits > 0 && mean[group_of[i]] > 0) {
      double n = static_cast<double>(g.experiments);
      residuals.push_back((cost(obs[i]) / obs[i].visits / mean[group_of[i]] - 1) *
                          std::sqrt(n / (n - 1)));
    }
  }
  if (residuals.size() < 2) {
    return;
  }

  // The group behind each curve point (the curve skips groups without a value).
  std::vector<size_t> group_at(s->curve.size());
  for (size_t k = 0; k < s->curve.size(); k++) {
    while (groups[group_at[k]].key != speedup_key(s->curve[k].line_speedup)) {
      group_at[k]++;
    }
  }

  // Replicates of each group's value: sum of weight x (mean x (1 + residual)) over its experiments.
  std::vector<std::vector<double>> at(s->curve.size()), predicted(s->predicted.size());
  const std::vector<double> weights = fit_weights(*s);
  std::vector<double> slopes, impacts, cost_sum(groups.size());
  std::vector<XY> curve;
  for (size_t b = 0; b < o.bootstrap; b++) {
    std::fill(cost_sum.begin(), cost_sum.end(), 0.0);
    for (size_t i = 0; i < obs.size(); i++) {
      double m = mean[group_of[i]];
      bool drawn = obs[i].visits > 0 && m > 0;
      double e = drawn ? residuals[rng.below(residuals.size())] : 0;
      cost_sum[group_of[i]] += drawn ? obs[i].visits * m * std::max(0.0, 1 + e) : cost(obs[i]);
    }
    curve.clear();
    double base = groups[0].visits > 0 ? cost_sum[0] / groups[0].visits : 0;
    if (base <= 0) {
      continue;
    }
    for (size_t k = 0; k < s->curve.size(); k++) {
      size_t g = group_at[k];
      double y = program_speedup(cost_sum[g] / groups[g].visits, base) * s->phase_factor;
      at[k].push_back(y);
      curve.push_back(XY{s->curve[k].line_speedup, k == 0 ? 0 : y});
    }
    slopes.push_back(slope_through_origin(curve));
    impacts.push_back(impact(curve));
    CurveFit fit = fit_curve(curve, weights);
    for (size_t k = 0; k < s->predicted.size(); k++) {
      predicted[k].push_back(fit.at(s->predicted[k].line_speedup));
    }
  }
  if (slopes.size() * 2 < o.bootstrap) {
    return;
  }
  for (size_t k = 1; k < s->curve.size(); k++) {
    Interval in = percentile_interval(&at[k], o.confidence);
    s->curve[k].program_speedup =
        Estimate{s->curve[k].program_speedup.value, true, in.low, in.high};
  }
  for (size_t k = 0; k < s->predicted.size(); k++) {
    Interval in = percentile_interval(&predicted[k], o.confidence);
    Estimate& e = s->predicted[k].program_speedup;
    e = Estimate{e.value, true, in.low, in.high};
  }
  Interval si = percentile_interval(&slopes, o.confidence);
  Interval ii = percentile_interval(&impacts, o.confidence);
  s->slope = Estimate{s->slope.value, true, si.low, si.high};
  s->impact = Estimate{s->impact.value, true, ii.low, ii.high};
}

// Benjamini-Hochberg over the lines of each (progress point, load level), on the permutation
// p-values: a rejected line helps (impact above 0) or hurts (slope below 0, contention).
void flag_significant(std::vector<Series>* series, const AnalysisOptions& o) {
  std::map<std::tuple<std::string, int, LoadLevel>, std::vector<size_t>> families;
  for (size_t i = 0; i < series->size(); i++) {
    const Series& s = (*series)[i];
    if (o.bootstrap > 0) {
      families[{s.point, static_cast<int>(s.kind), s.level}].push_back(i);
    }
  }
  for (const auto& [key, members] : families) {
    std::vector<double> p;
    for (size_t i : members) {
      p.push_back((*series)[i].p_value);
    }
    std::vector<bool> rejected = benjamini_hochberg(p, o.fdr);
    for (size_t k = 0; k < members.size(); k++) {
      Series& s = (*series)[members[k]];
      s.significant = rejected[k] && s.slope.value > 0 && s.impact.value > 0;
      s.contention = rejected[k] && s.slope.value < 0;
    }
  }
}

}  // namespace

Report analyse(const ProfileData& data, const AnalysisOptions& options) {
  Report report;
  report.options = options;
  report.runs = data.runs().size();
  report.experiments = data.experiments().size();
  for (const Run& r : data.runs()) {
    report.runtime_ns += r.runtime_ns;
  }

  std::map<SeriesKey, std::vector<Observation>> observed;
  std::map<std::string, Location> lines;  // by name, the lines tested
  std::set<LoadLevel> levels;
  for (const Experiment& e : data.experiments()) {
    // Load amplification alone tests no line: it counts for the points and the scalability table.
    bool tests_line = e.line.name != kNoLine;
    if (tests_line) {
      lines.try_emplace(e.line.name, e.line);
    }
    levels.insert(e.level);
    for (const PointCounts& p : e.points) {
      if (tests_line) {
        Observation o{speedup_key(e.speedup), e.speedup, e.duration_ns, p.visits, p.in_flight_ns};
        observed[{e.line.name, p.name, p.kind, e.level}].push_back(o);
      }
      auto it = std::find_if(
          report.points.begin(), report.points.end(),
          [&](const ProgressPointInfo& i) { return i.name == p.name && i.kind == p.kind; });
      if (it == report.points.end()) {
        report.points.push_back(ProgressPointInfo{p.name, p.kind, 0});
        it = report.points.end() - 1;
      }
      it->visits += p.visits;
    }
  }
  report.lines_tested = lines.size();
  report.levels.assign(levels.begin(), levels.end());

  std::map<std::string, double> factors =
      options.phase_correction ? phase_factors(data) : std::map<std::string, double>{};
  std::set<std::string> no_baseline, few_speedups, shown;
  for (const auto& [key, obs] : observed) {
    std::vector<Group> groups = group_by_speedup(obs, nullptr);
    Series s;
    s.line = lines.at(key.line);
    s.point = key.point;
    s.kind = key.kind;
    s.level = key.level;
    s.experiments = obs.size();
    auto f = factors.find(key.line);
    if (f != factors.end()) {
      s.phase_factor = f->second;
      s.phase_corrected = true;
    }
    std::vector<XY> raw;
    if (!speedup_curve(groups, key.kind, 1, &raw)) {
      no_baseline.insert(key.line);
      continue;
    }
    report.most_speedups = std::max(report.most_speedups, raw.size());
    if (raw.size() < options.min_speedups || raw.size() < 2) {
      few_speedups.insert(key.line);
      continue;
    }
    std::vector<XY> corrected;
    for (const Group& g : groups) {
      if (g.value_ns(key.kind) < 0) {
        continue;
      }
      CurvePoint p;
      p.line_speedup = g.speedup;
      p.experiments = g.experiments;
      p.visits = g.visits;
      p.duration_ns = g.duration_ns;
      p.value_ns = g.value_ns(key.kind);
      p.uncorrected = program_speedup(p.value_ns, groups[0].value_ns(key.kind));
      p.program_speedup.value = p.uncorrected * s.phase_factor;
      corrected.push_back(XY{p.line_speedup, p.program_speedup.value});
      s.max_speedup = std::max(s.max_speedup, p.program_speedup.value);
      s.curve.push_back(p);
    }
    s.slope.value = slope_through_origin(corrected);
    s.impact.value = impact(corrected);
    predict(&s, fit_curve(corrected, fit_weights(s)));
    bootstrap(&s, obs, groups, options,
              Rng(options.seed ^ fnv1a(key.line + '\n' + key.point + '\n' + key.level.label())));
    shown.insert(key.line);
    report.series.push_back(std::move(s));
  }
  // A line counts as dropped when none of its series could be shown, for the first reason.
  for (const std::string& line : few_speedups) {
    report.dropped_few_speedups += shown.count(line) == 0;
  }
  for (const std::string& line : no_baseline) {
    report.dropped_no_baseline += shown.count(line) == 0 && few_speedups.count(line) == 0;
  }
  flag_significant(&report.series, options);
  if (report.levels.size() > 1) {
    report.scalability = scalability_table(data, options);
  }
  report.diagnosis = diagnose(data, report);
  return report;
}

void rank(std::vector<Series>* series, SortOrder order) {
  auto key = [order](const Series& s) {
    switch (order) {
      case SortOrder::kImpact:
        return s.impact.value;
      case SortOrder::kSlope:
        return s.slope.value;
      case SortOrder::kMaxSpeedup:
        return s.max_speedup;
      case SortOrder::kName:
        break;
    }
    return 0.0;
  };
  // A line too thinly measured for an interval never outranks one that has an interval: its value
  // could be any noise. (By name: the order is the name's alone.)
  auto measured = [order](const Series& s) {
    return order == SortOrder::kName || s.impact.has_interval;
  };
  std::stable_sort(series->begin(), series->end(), [&](const Series& a, const Series& b) {
    if (measured(a) != measured(b)) {
      return measured(a);
    }
    double ka = std::isnan(key(a)) ? -INFINITY : key(a),
           kb = std::isnan(key(b)) ? -INFINITY : key(b);
    if (ka != kb) {
      return ka > kb;
    }
    return std::tie(a.line.name, a.point) < std::tie(b.line.name, b.point);
  });
}

void rank_in_groups(std::vector<Series>* series, SortOrder order) {
  rank(series, order);
  std::stable_sort(series->begin(), series->end(), [](const Series& a, const Series& b) {
    return std::tie(a.point, a.kind, a.level) < std::tie(b.point, b.kind, b.level);
  });
}

}  // namespace coz::analysis
