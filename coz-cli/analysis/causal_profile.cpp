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
  PointKind kind;
  LoadLevel level;
  bool operator<(const SeriesKey& o) const {
    if (line != o.line) return line < o.line;
    if (point != o.point) return point < o.point;
    if (kind != o.kind) return kind < o.kind;
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
    Acc& a = acc[e.line];
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
double slope_permutation_p(PointKind kind, const std::vector<Observation>& obs, size_t rounds, Rng* rng) {
  std::vector<double> xs, rates;
  for (const Observation& o : obs) {
    double denominator = kind == PointKind::kThroughput ? o.duration_ns : o.in_flight_ns;
    if (denominator > 0 && (kind == PointKind::kThroughput || o.visits > 0)) {
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

// Intervals for each curve point (resampling within each speedup and the baseline), and for the
// slope and impact (resampling the series' experiments as a whole, as the profiler drew them).
void bootstrap(Series* s, const std::vector<Observation>& obs, const std::vector<Group>& groups,
               const AnalysisOptions& o, Rng rng) {
  if (o.bootstrap == 0) {
    return;
  }
  std::vector<std::vector<size_t>> members(groups.size());
  for (size_t i = 0; i < obs.size(); i++) {
    for (size_t g = 0; g < groups.size(); g++) {
      if (groups[g].key == obs[i].key) {
        members[g].push_back(i);
      }
    }
  }
  const double factor = s->phase_factor;
  std::vector<double> reps;
  for (CurvePoint& p : s->curve) {
    size_t g = 0;
    while (g < groups.size() && groups[g].key != speedup_key(p.line_speedup)) {
      g++;
    }
    if (g == 0 || g == groups.size() || members[0].size() < 2 || members[g].size() < 2) {
      continue;  // the baseline is 0 by definition; a single experiment cannot be resampled
    }
    reps.clear();
    for (size_t b = 0; b < o.bootstrap; b++) {
      Group base, at;
      for (size_t k = 0; k < members[0].size(); k++) {
        base.add(obs[members[0][rng.below(members[0].size())]]);
      }
      for (size_t k = 0; k < members[g].size(); k++) {
        at.add(obs[members[g][rng.below(members[g].size())]]);
      }
      double v0 = base.value_ns(s->kind), v = at.value_ns(s->kind);
      if (v0 > 0 && v >= 0) {
        reps.push_back((1 - v / v0) * factor);
      }
    }
    if (reps.size() * 2 >= o.bootstrap) {
      Interval in = percentile_interval(&reps, o.confidence);
      p.program_speedup.has_interval = true;
      p.program_speedup.low = in.low;
      p.program_speedup.high = in.high;
    }
  }

  std::vector<double> slopes, impacts;
  std::vector<size_t> pick(obs.size());
  std::vector<XY> curve;
  for (size_t b = 0; b < o.bootstrap; b++) {
    for (size_t& i : pick) {
      i = rng.below(obs.size());
    }
    if (!speedup_curve(group_by_speedup(obs, &pick), s->kind, factor, &curve) || curve.size() < 2) {
      continue;
    }
    slopes.push_back(slope_through_origin(curve));
    impacts.push_back(impact(curve));
  }
  if (slopes.size() * 2 < o.bootstrap) {
    return;
  }
  s->p_value = slope_permutation_p(s->kind, obs, o.bootstrap, &rng);
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
    if (s.slope.has_interval) {
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
  std::set<std::string> lines;
  std::set<LoadLevel> levels;
  for (const Experiment& e : data.experiments()) {
    lines.insert(e.line);
    levels.insert(e.level);
    for (const PointCounts& p : e.points) {
      Observation o{speedup_key(e.speedup), e.speedup, e.duration_ns, p.visits, p.in_flight_ns};
      observed[{e.line, p.name, p.kind, e.level}].push_back(o);
      auto it = std::find_if(report.points.begin(), report.points.end(), [&](const ProgressPointInfo& i) {
        return i.name == p.name && i.kind == p.kind;
      });
      if (it == report.points.end()) {
        report.points.push_back(ProgressPointInfo{p.name, p.kind, 0});
        it = report.points.end() - 1;
      }
      it->visits += p.visits;
    }
  }
  report.lines_tested = lines.size();
  report.levels.assign(levels.begin(), levels.end());

  std::map<std::string, double> factors = options.phase_correction ? phase_factors(data)
                                                                   : std::map<std::string, double>{};
  std::set<std::string> no_baseline, few_speedups, shown;
  for (const auto& [key, obs] : observed) {
    std::vector<Group> groups = group_by_speedup(obs, nullptr);
    Series s;
    s.line = key.line;
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
      p.uncorrected = 1 - p.value_ns / groups[0].value_ns(key.kind);
      p.program_speedup.value = p.uncorrected * s.phase_factor;
      corrected.push_back(XY{p.line_speedup, p.program_speedup.value});
      s.max_speedup = std::max(s.max_speedup, p.program_speedup.value);
      s.curve.push_back(p);
    }
    s.slope.value = slope_through_origin(corrected);
    s.impact.value = impact(corrected);
    bootstrap(&s, obs, groups, options, Rng(options.seed ^ fnv1a(key.line + '\n' + key.point + '\n' + key.level.label())));
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
  std::stable_sort(series->begin(), series->end(), [&](const Series& a, const Series& b) {
    double ka = key(a), kb = key(b);
    if (ka != kb) {
      return ka > kb;
    }
    return std::tie(a.line, a.point) < std::tie(b.line, b.point);
  });
}

}  // namespace coz::analysis
