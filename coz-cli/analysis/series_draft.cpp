// One line's series drafted from its experiments in a family (see series_draft.h).
#include "analysis/series_draft.h"

#include <algorithm>
#include <set>

namespace coz::analysis {
namespace {

// The fitted curve's weights: each point's experiments (the baseline's do not enter the fit).
std::vector<double> fit_weights(const Series& s) {
  std::vector<double> w;
  for (const CurvePoint& p : s.curve) {
    w.push_back(static_cast<double>(p.experiments));
  }
  return w;
}

// kPredictedSpeedups, then `extra`, up to the largest line speedup measured, from `fit`.
void predict(Series* s, const CurveFit& fit, const std::vector<double>& extra) {
  s->predicted.clear();
  double largest = s->curve.empty() ? 0 : s->curve.back().line_speedup;
  auto add = [&](double x) {
    if (x <= largest + 1e-9) {
      s->predicted.push_back(Prediction{x, Estimate{fit.at(x), false, 0, 0}});
    }
  };
  for (double x : kPredictedSpeedups) {
    add(x);
  }
  for (double x : extra) {
    add(x);
  }
}

}  // namespace

Drafted draft_series(const SeriesContext& c, const std::string& line,
                     const std::vector<size_t>& members, SeriesDraft* out, size_t* speedups) {
  const Family& f = *c.family;
  if (f.baseline.relative() <= 0) {
    return Drafted::kNoBaseline;
  }
  // The line's speedups with a value, each with its experiments; the baseline is the family's.
  SeriesDraft& d = *out;
  std::set<long> keys;
  for (size_t i : members) {
    keys.insert(f.obs[i].key);
  }
  for (long key_at : keys) {
    if (key_at == 0) {
      continue;
    }
    Group g;
    std::vector<size_t> in_group;
    for (size_t i : members) {
      if (f.obs[i].key == key_at) {
        g.key = key_at;
        g.speedup = f.obs[i].speedup;
        g.add(f.obs[i]);
        in_group.push_back(i);
      }
    }
    if (g.relative() > 0) {
      d.groups.push_back(g);
      d.members.push_back(std::move(in_group));
    }
  }
  *speedups = d.groups.size() + 1;
  if (*speedups < c.min_speedups || *speedups < 2) {
    return Drafted::kFewSpeedups;
  }
  Series& s = d.series;
  s.line = c.lines->at(line);
  s.point = c.point;
  s.kind = c.kind;
  s.level = c.level;
  s.experiments = members.size();
  auto factor = c.factors->find(line);
  if (factor != c.factors->end()) {
    s.phase_factor = factor->second;
    s.phase_corrected = true;
  }
  auto samples = c.sampled->find(line);
  if (samples != c.sampled->end()) {
    s.samples = samples->second;
  }
  const double base = f.baseline.relative();
  CurvePoint zero;
  zero.experiments = f.baseline.experiments;
  zero.visits = f.baseline.visits;
  zero.duration_ns = f.baseline.duration_ns;
  zero.value_ns = f.baseline.value_ns(c.kind);
  s.curve.push_back(zero);
  std::vector<XY> corrected{XY{0, 0}};
  for (const Group& g : d.groups) {
    CurvePoint p;
    p.line_speedup = g.speedup;
    p.experiments = g.experiments;
    p.visits = g.visits;
    p.duration_ns = g.duration_ns;
    p.value_ns = g.value_ns(c.kind);
    p.uncorrected = program_speedup(g.relative(), base);
    p.program_speedup.value = p.uncorrected * s.phase_factor;
    corrected.push_back(XY{p.line_speedup, p.program_speedup.value});
    s.max_speedup = std::max(s.max_speedup, p.program_speedup.value);
    s.curve.push_back(p);
  }
  d.weights = fit_weights(s);
  const CurveSummary summary = summarise_curve(corrected, d.weights);
  s.slope.value = summary.slope;
  s.impact.value = summary.impact;
  predict(&s, summary.fit, *c.predict_at);
  d.experiments = members;
  return Drafted::kDrafted;
}

}  // namespace coz::analysis
