// Intervals by bootstrap over experiments (see bootstrap.h).
#include "analysis/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "analysis/parallel.h"

namespace coz::analysis {

void measure_noise(Family* f) {
  // (Every baseline in one group, whichever line it named: at 0% no line is sped up.)
  std::map<std::pair<uint64_t, long>, std::vector<size_t>> groups;
  for (size_t i = 0; i < f->obs.size(); i++) {
    if (f->obs[i].visits > 0 && f->obs[i].matched > 0) {
      uint64_t line = f->obs[i].key == 0 ? 0 : uint64_t{f->line[i]} + 1;
      groups[{line, f->obs[i].key}].push_back(i);
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
  f->pool = FixedModulus(f->residuals.size());
  f->scale.assign(f->obs.size(), 1.0);
  for (size_t i = 0; i < f->obs.size(); i++) {
    if (f->obs[i].visits > 0) {
      f->scale[i] = std::pow(f->typical_visits / f->obs[i].visits, f->exponent / 2);
    }
  }
}

namespace {

// What every series of the family shares in replicate b: where the replicate's draws begin in
// the family's stream, the redrawn baselines' matched cost per visit (`base`; not positive when
// the replicate is skipped), and the redrawn cost of each distinct reference window the series'
// experiments use (kept for every replicate when that fits kSharedBytes; otherwise each batch of
// series redraws the baselines itself). With these a series' replicates are computed on their
// own, in any order, and equal those of one loop over replicates, then series.
struct Shared {
  const Family* f = nullptr;
  bool matching = false;
  double base_mean = 0;
  Rng start{0};                      // the family's stream where the bootstrap begins
  uint64_t per_replicate = 0;        // draws of a replicate that is not skipped
  std::vector<uint64_t> first_draw;  // per replicate: draws before it
  std::vector<double> base;
  std::vector<double> prefix_visits;  // of the baselines in time order
  // Per baseline in time order, what its redraw and its reference need (read in turn, so a
  // replicate streams through them instead of gathering from the experiments).
  struct Baseline {
    double cost_at_mean;  // visits x reference x base_mean: its cost before noise
    double scale;         // of its residual
    double visits;        // of its reference window, less its own when in it
    double fallback;      // its reference when the window has none: as measured, at base_mean
    size_t left, right;   // its reference window
    bool self;
  };
  std::vector<Baseline> baselines;
  std::vector<size_t> window_of;  // per observation: its window's index in `windows`
  std::vector<std::pair<size_t, size_t>> windows;
  std::vector<double> window_cost;  // replicate-major; empty when redrawn per batch
};

// The budget for the shared window costs, and for one batch's replicates when they are not kept.
constexpr size_t kSharedBytes = size_t{64} << 20;
constexpr size_t kBatchBytes = size_t{32} << 20;

// The next n residuals of the stream. The pool is large (one per experiment) and read at random,
// so they are fetched ahead: the reads overlap instead of waiting in turn.
void next_residuals(const Family& f, Rng* rng, size_t n, std::vector<const double*>* out) {
  out->resize(n);
  for (size_t k = 0; k < n; k++) {
    (*out)[k] = &f.residuals[f.pool.of(rng->next())];
    __builtin_prefetch((*out)[k]);
  }
}

// Scratch of one thread: baselines by time, residuals fetched ahead, a curve.
struct Scratch {
  std::vector<double> drawn, prefix_cost;
  std::vector<const double*> residuals;
  std::vector<XY> curve;
};

// Replicate b's baselines redrawn from `first_draw` in the stream: their prefix costs in time
// order (in the scratch), and their matched cost per visit.
double redraw_baselines(const Shared& sh, uint64_t first_draw, Scratch* s) {
  const Family& f = *sh.f;
  const size_t n = sh.baselines.size();
  s->drawn.resize(n);
  s->prefix_cost.assign(n + 1, 0);
  Rng rng = sh.start;
  rng.skip(first_draw);
  constexpr size_t kAhead = 16;
  for (size_t from = 0; from < n; from += kAhead) {
    size_t to = std::min(n, from + kAhead);
    next_residuals(f, &rng, to - from, &s->residuals);
    for (size_t p = from; p < to; p++) {
      const Shared::Baseline& b = sh.baselines[p];
      s->drawn[p] = b.cost_at_mean * std::max(0.0, 1 + *s->residuals[p - from] * b.scale);
      s->prefix_cost[p + 1] = s->prefix_cost[p] + s->drawn[p];
    }
  }
  double matched = 0;
  for (size_t p = 0; p < n; p++) {
    const Shared::Baseline& b = sh.baselines[p];
    double reference = 1.0;
    if (sh.matching) {
      double cost = s->prefix_cost[b.right] - s->prefix_cost[b.left] - (b.self ? s->drawn[p] : 0);
      reference = b.visits > 0 && cost > 0 ? cost / b.visits : b.fallback;
    }
    matched += s->drawn[p] / reference;
  }
  return matched / f.baseline.visits;
}

void window_costs(const Shared& sh, const std::vector<double>& prefix_cost, double* out) {
  for (size_t w = 0; w < sh.windows.size(); w++) {
    out[w] = prefix_cost[sh.windows[w].second] - prefix_cost[sh.windows[w].first];
  }
}

// Replicates [from, to) of the baselines, each from first_draw (which assumes no replicate before
// it was skipped; the caller corrects that).
void replicate_baselines(Shared* sh, size_t from, size_t to) {
  Scratch scratch;
  for (size_t b = from; b < to; b++) {
    sh->base[b] = redraw_baselines(*sh, sh->first_draw[b], &scratch);
    if (!sh->window_cost.empty()) {
      window_costs(*sh, scratch.prefix_cost, &sh->window_cost[b * sh->windows.size()]);
    }
  }
}

// What one experiment of a series needs in every replicate, gathered once per batch from the
// family's arrays.
struct Member {
  double cost_per_mean;  // visits x reference: its redrawn cost is this x its group's mean x noise
  double scale;          // of its residual
  double window_visits;  // of its reference window, less its own when in it
  double fallback;       // its reference when the window has no cost: as measured, at base_mean
  double matched;        // as measured: experiments without visits are not redrawn
  size_t window;         // its window's index in the shared window costs
  bool draws;            // it has visits
};

Member member(const Shared& sh, size_t i) {
  const Family& f = *sh.f;
  const TimeMatch::Window& w = f.match.windows[i];
  return Member{
      f.obs[i].visits * f.match.reference[i],
      f.scale[i],
      sh.prefix_visits[w.right] - sh.prefix_visits[w.left] - (w.self ? f.obs[i].visits : 0),
      f.match.reference[i] * sh.base_mean,
      f.obs[i].matched,
      sh.window_of[i],
      f.obs[i].visits > 0};
}

// One replicate of one series (its experiments in `members`, group by group), from its `draws`
// residuals at `rng`: each curve point, the slope, the impact and the predictions, written to
// out[slot * stride].
void replicate_series(const Shared& sh, const SeriesDraft& d, const Member* members, size_t b,
                      const double* costs, Rng rng, uint64_t draws, Scratch* scratch, double* out,
                      size_t stride) {
  const Series& s = d.series;
  // A series' experiments are never baselines: nothing of their own is in their window's cost.
  auto reference = [&](const Member& m) {
    if (!sh.matching) {
      return 1.0;
    }
    double cost = costs[m.window];
    return m.window_visits > 0 && cost > 0 ? cost / m.window_visits : m.fallback;
  };
  next_residuals(*sh.f, &rng, draws, &scratch->residuals);
  const double* const* residual = scratch->residuals.data();
  std::vector<XY>& curve = scratch->curve;
  curve.assign(1, XY{0, 0});
  size_t slot = 0;
  for (size_t k = 0; k < d.groups.size(); k++) {
    const double mean = d.groups[k].relative();
    double group_matched = 0;
    for (size_t n = d.members[k].size(); n > 0; n--, members++) {
      const Member& m = *members;
      group_matched += m.draws ? m.cost_per_mean * mean *
                                     std::max(0.0, 1 + **residual++ * m.scale) / reference(m)
                               : m.matched;
    }
    double y = program_speedup(group_matched / d.groups[k].visits, sh.base[b]) * s.phase_factor;
    out[slot++ * stride] = y;
    curve.push_back(XY{s.curve[k + 1].line_speedup, y});
  }
  const CurveSummary summary = summarise_curve(curve, d.weights);  // as the estimate's own
  out[slot++ * stride] = summary.slope;
  out[slot++ * stride] = summary.impact;
  for (const Prediction& p : s.predicted) {
    out[slot++ * stride] = summary.fit.at(p.line_speedup);
  }
}

size_t slots(const SeriesDraft& d) {
  return d.groups.size() + 2 + d.series.predicted.size();
}

// Every replicate of drafts [from, to), then their intervals. `offsets`: each draft's first draw
// within a replicate (one more entry than the drafts).
void bootstrap_batch(const Shared& sh, std::vector<SeriesDraft>* drafts, size_t from, size_t to,
                     const std::vector<uint64_t>& offsets, const AnalysisOptions& o) {
  const size_t replicates = o.bootstrap;
  std::vector<size_t> slot_base{0}, member_base{0};
  std::vector<Member> members;
  for (size_t d = from; d < to; d++) {
    slot_base.push_back(slot_base.back() + slots((*drafts)[d]));
    for (const std::vector<size_t>& group : (*drafts)[d].members) {
      for (size_t i : group) {
        members.push_back(member(sh, i));
      }
    }
    member_base.push_back(members.size());
  }
  std::vector<double> values(slot_base.back() * replicates), own_costs;
  const bool redraw = sh.window_cost.empty() && sh.matching;
  Scratch scratch;
  size_t kept = 0;
  for (size_t b = 0; b < replicates; b++) {
    if (!(sh.base[b] > 0)) {
      continue;
    }
    const double* costs = nullptr;
    if (redraw) {
      redraw_baselines(sh, sh.first_draw[b], &scratch);
      own_costs.resize(sh.windows.size());
      window_costs(sh, scratch.prefix_cost, own_costs.data());
      costs = own_costs.data();
    } else if (sh.matching) {
      costs = &sh.window_cost[b * sh.windows.size()];
    }
    for (size_t d = from; d < to; d++) {
      Rng rng = sh.start;
      rng.skip(sh.first_draw[b] + offsets[d]);
      replicate_series(sh, (*drafts)[d], &members[member_base[d - from]], b, costs, rng,
                       offsets[d + 1] - offsets[d], &scratch,
                       &values[slot_base[d - from] * replicates + kept], replicates);
    }
    kept++;
  }
  if (kept * 2 < replicates) {
    return;
  }
  std::vector<double> sample;
  auto interval = [&](size_t d, size_t slot, Estimate* e) {
    const double* v = &values[(slot_base[d - from] + slot) * replicates];
    sample.assign(v, v + kept);
    Interval in = percentile_interval(&sample, o.confidence);
    *e = Estimate{e->value, true, in.low, in.high};
  };
  for (size_t d = from; d < to; d++) {
    SeriesDraft& draft = (*drafts)[d];
    Series& s = draft.series;
    size_t slot = 0;
    for (size_t k = 0; k < draft.groups.size(); k++) {
      interval(d, slot++, &s.curve[k + 1].program_speedup);
    }
    interval(d, slot++, &s.slope);
    interval(d, slot++, &s.impact);
    for (Prediction& p : s.predicted) {
      interval(d, slot++, &p.program_speedup);
    }
  }
}

}  // namespace

void bootstrap(const Family& f, std::vector<SeriesDraft>* drafts, const AnalysisOptions& o,
               bool matching, Rng* rng, std::atomic<size_t>* done) {
  Shared sh;
  sh.f = &f;
  sh.matching = matching;
  sh.base_mean = f.baseline.relative();
  if (o.bootstrap == 0 || f.residuals.empty() || sh.base_mean <= 0 || drafts->empty()) {
    return;
  }
  const std::vector<size_t>& order = f.match.baselines;
  sh.start = *rng;
  sh.prefix_visits.assign(order.size() + 1, 0);
  for (size_t p = 0; p < order.size(); p++) {
    sh.prefix_visits[p + 1] = sh.prefix_visits[p] + f.obs[order[p]].visits;
  }
  for (size_t i : order) {
    const TimeMatch::Window& w = f.match.windows[i];
    sh.baselines.push_back(Shared::Baseline{
        f.obs[i].visits * f.match.reference[i] * sh.base_mean, f.scale[i],
        sh.prefix_visits[w.right] - sh.prefix_visits[w.left] - (w.self ? f.obs[i].visits : 0),
        f.match.reference[i] * sh.base_mean, w.left, w.right, w.self});
  }
  // Each series' first draw within a replicate (after the baselines'), and the distinct windows
  // of its experiments.
  std::vector<uint64_t> offsets{order.size()};
  std::map<std::pair<size_t, size_t>, size_t> ids;
  sh.window_of.assign(f.obs.size(), 0);
  for (const SeriesDraft& d : *drafts) {
    uint64_t draws = 0;
    for (const std::vector<size_t>& members : d.members) {
      for (size_t i : members) {
        draws += f.obs[i].visits > 0;
        const TimeMatch::Window& w = f.match.windows[i];
        auto [it, added] = ids.emplace(std::make_pair(w.left, w.right), sh.windows.size());
        if (added) {
          sh.windows.push_back(it->first);
        }
        sh.window_of[i] = it->second;
      }
    }
    offsets.push_back(offsets.back() + draws);
  }
  sh.per_replicate = offsets.back();
  if (matching && sh.windows.size() * o.bootstrap * sizeof(double) <= kSharedBytes) {
    sh.window_cost.resize(sh.windows.size() * o.bootstrap);
  }
  // Every replicate's baselines, once, on every core: first as if no replicate were skipped,
  // then in order, again for any that follows a skipped one (which draws its baselines only).
  sh.base.resize(o.bootstrap);
  for (size_t b = 0; b < o.bootstrap; b++) {
    sh.first_draw.push_back(b * sh.per_replicate);
  }
  constexpr size_t kReplicatesPerTask = 25;
  parallel_for((o.bootstrap + kReplicatesPerTask - 1) / kReplicatesPerTask, [&](size_t k) {
    replicate_baselines(&sh, k * kReplicatesPerTask,
                        std::min(o.bootstrap, (k + 1) * kReplicatesPerTask));
  });
  uint64_t draws = 0;
  for (size_t b = 0; b < o.bootstrap; b++) {
    if (sh.first_draw[b] != draws) {
      sh.first_draw[b] = draws;
      replicate_baselines(&sh, b, b + 1);
    }
    draws += sh.base[b] > 0 ? sh.per_replicate : order.size();
  }
  rng->skip(draws);
  // Batches of series, each one's replicates kept only while its intervals are taken.
  std::vector<size_t> batch_start{0};
  size_t bytes = 0;
  const size_t batch_bytes = sh.window_cost.empty() && matching ? kBatchBytes : size_t{1} << 20;
  for (size_t d = 0; d < drafts->size(); d++) {
    bytes += slots((*drafts)[d]) * o.bootstrap * sizeof(double);
    if (bytes >= batch_bytes || d + 1 == drafts->size()) {
      batch_start.push_back(d + 1);
      bytes = 0;
    }
  }
  parallel_for(batch_start.size() - 1, [&](size_t k) {
    bootstrap_batch(sh, drafts, batch_start[k], batch_start[k + 1], offsets, o);
    size_t experiments = 0;
    for (size_t d = batch_start[k]; d < batch_start[k + 1]; d++) {
      experiments += (*drafts)[d].experiments.size();
    }
    *done += experiments;
  });
}

}  // namespace coz::analysis
