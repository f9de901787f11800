// Builds the causal profile from experiments (see causal_profile.h).
#include "analysis/causal_profile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "analysis/bootstrap.h"
#include "analysis/diagnosis.h"
#include "analysis/parallel.h"
#include "analysis/scalability.h"
#include "analysis/series_builder.h"
#include "analysis/series_draft.h"
#include "analysis/significance.h"
#include "analysis/statistics.h"
#include "analysis/time_matching.h"

namespace coz::analysis {
namespace {

// The experiments of one progress point at one load level: every line's, compared with the same
// baselines.
struct FamilyKey {
  std::string point;
  PointMetric kind;
  LoadLevel level;
  bool operator<(const FamilyKey& o) const {
    return std::tie(point, kind, level) < std::tie(o.point, o.kind, o.level);
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
// left out: their factor is 1 and they are marked uncorrected. The runtime counts a wait on the
// selected line among its selected samples, so `s` is the line's running and blocked samples both.
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
      for (const std::map<std::string, double>* counts : {&run.samples, &run.blocked}) {
        auto it = counts->find(line);
        s += it == counts->end() ? 0 : it->second;
      }
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

// Each experiment's midpoint on both clocks of time_matching.h: in the program's own time, from
// its run's start less the delays inserted by the run's earlier experiments (while paused the
// program makes no progress, so a run with many delays reaches each phase later in real time);
// and in the profile's real time, each run starting where the one before it ended (its runtime,
// or its last experiment's end when it has none). Fills the TimedCost times of each experiment.
std::vector<TimedCost> experiment_times(const ProfileData& data) {
  const std::vector<Experiment>& all = data.experiments();
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); i++) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&all](size_t a, size_t b) {
    return std::tie(all[a].run, all[a].start_ns) < std::tie(all[b].run, all[b].start_ns);
  });
  std::vector<TimedCost> times(all.size());
  double paused = 0, run_start = 0, run_end = 0;
  for (size_t k = 0; k < order.size(); k++) {
    const Experiment& e = all[order[k]];
    if (k > 0 && all[order[k - 1]].run != e.run) {
      paused = 0;
      run_start += std::max(run_end, data.runs()[all[order[k - 1]].run].runtime_ns);
      run_end = 0;
    }
    TimedCost& t = times[order[k]];
    t.run = e.run;
    t.run_time_ns = std::max(0.0, e.start_ns - paused) + e.duration_ns / 2;
    t.profile_time_ns = run_start + e.start_ns + e.elapsed_ns / 2;
    paused += std::max(0.0, e.elapsed_ns - e.duration_ns);
    run_end = std::max(run_end, e.start_ns + e.elapsed_ns);
  }
  return times;
}

// The lines tested, by name, and in that order (a line's rank: families and their groups key
// lines by it, in the same order as by name, without the strings).
struct Tested {
  std::map<std::string, Location> by_name;
  std::vector<const std::string*> names;
  std::unordered_map<std::string_view, uint32_t> rank_of;
};

Tested tested_lines(const ProfileData& data) {
  Tested t;
  for (const Experiment& e : data.experiments()) {
    // Load amplification alone tests no line: it counts for the points and the scalability table.
    if (e.line.name != kNoLine) {
      t.by_name.try_emplace(e.line.name, e.line);
    }
  }
  for (const auto& [name, location] : t.by_name) {
    t.rank_of.emplace(name, static_cast<uint32_t>(t.names.size()));
    t.names.push_back(&name);
  }
  return t;
}

// Every experiment that tested a line, seen from each progress point at its load level: the
// families. Fills the report's progress points, load levels and count of lines tested.
std::map<FamilyKey, Family> families_of(const ProfileData& data, const Tested& tested,
                                        Report* report) {
  const std::vector<TimedCost> times = experiment_times(data);
  std::map<FamilyKey, Family> families;
  std::set<LoadLevel> levels;
  for (size_t n = 0; n < data.experiments().size(); n++) {
    const Experiment& e = data.experiments()[n];
    bool tests_line = e.line.name != kNoLine;
    const uint32_t line_rank = tests_line ? tested.rank_of.at(e.line.name) : 0;
    levels.insert(e.level);
    for (const PointCounts& p : e.points) {
      if (tests_line) {
        Family& f = families[{p.name, p.kind, e.level}];
        double cost = p.kind == PointMetric::kThroughput ? e.duration_ns : p.in_flight_ns;
        f.obs.push_back(Observation{speedup_key(e.speedup), e.speedup, e.duration_ns, p.visits,
                                    p.in_flight_ns, cost});
        f.line.push_back(line_rank);
        TimedCost t = times[n];
        t.cost = cost;
        t.visits = p.visits;
        t.baseline = speedup_key(e.speedup) == 0;
        f.timed.push_back(t);
      }
      auto it = std::find_if(
          report->points.begin(), report->points.end(),
          [&](const ProgressPointInfo& i) { return i.name == p.name && i.kind == p.kind; });
      if (it == report->points.end()) {
        report->points.push_back(ProgressPointInfo{p.name, p.kind, 0});
        it = report->points.end() - 1;
      }
      it->visits += p.visits;
    }
  }
  report->lines_tested = tested.by_name.size();
  report->levels.assign(levels.begin(), levels.end());
  return families;
}

}  // namespace

Report analyse(const ProfileData& data, const AnalysisOptions& options,
               AnalysisProgress* progress) {
  Report report;
  report.options = options;
  report.runs = data.runs().size();
  report.experiments = data.experiments().size();
  for (const Experiment& e : data.experiments()) {
    report.saturated += e.saturated();
  }
  for (const Run& r : data.runs()) {
    report.runtime_ns += r.runtime_ns;
  }

  Tested tested = tested_lines(data);
  std::map<FamilyKey, Family> families = families_of(data, tested, &report);
  const std::map<std::string, Location>& lines = tested.by_name;
  const std::vector<const std::string*>& line_names = tested.names;

  std::map<std::string, double> factors =
      options.phase_correction ? phase_factors(data) : std::map<std::string, double>{};
  const std::map<std::string, LineSamples> sampled = line_samples(data);
  std::set<std::string> no_baseline, few_speedups, shown;
  AnalysisProgress unwatched;
  progress = progress != nullptr ? progress : &unwatched;
  for (const auto& [key, f] : families) {
    progress->total += f.obs.size();
  }
  for (auto& [key, f] : families) {
    const std::string family_name = key.point + '\n' + key.level.label();
    Rng family_rng(options.seed ^ fnv1a(family_name));
    f.match = match_in_time(f.timed, choose_matching(f.timed), options.time_matching);
    std::vector<double> lengths;
    for (size_t i = 0; i < f.obs.size(); i++) {
      f.obs[i].matched = f.timed[i].cost / f.match.reference[i];
      lengths.push_back(f.obs[i].duration_ns);
      if (f.obs[i].key == 0) {
        f.baseline.add(f.obs[i]);
      }
    }
    // The drift test draws first in the family's stream and runs beside the lines' work, which
    // starts where the test's draws end.
    BaselineTrend trend;
    Rng trend_rng = family_rng;
    family_rng.skip(baseline_trend_draws(f.timed, options.bootstrap));
    const Family& family = f;  // (a structured binding cannot be captured in C++17)
    Beside trend_test([&trend, &family, &lengths, &options, &trend_rng] {
      trend = baseline_trend(family.timed, family.match.reference, lengths, options.bootstrap,
                             &trend_rng);
    });
    measure_noise(&f);

    std::vector<std::vector<size_t>> by_line(line_names.size());
    for (size_t i = 0; i < f.obs.size(); i++) {
      by_line[f.line[i]].push_back(i);
    }
    const SeriesContext context{&f,
                                key.point,
                                key.kind,
                                key.level,
                                &lines,
                                &factors,
                                &sampled,
                                options.min_speedups,
                                &options.predict_at};
    std::vector<SeriesDraft> drafts;
    for (size_t rank = 0; rank < by_line.size(); rank++) {
      const std::vector<size_t>& members = by_line[rank];
      if (members.empty()) {
        continue;
      }
      const std::string& line = *line_names[rank];
      SeriesDraft d;
      size_t speedups = 0;
      switch (draft_series(context, line, members, &d, &speedups)) {
        case Drafted::kNoBaseline:
          no_baseline.insert(line);
          break;
        case Drafted::kFewSpeedups:
          report.most_speedups = std::max(report.most_speedups, speedups);
          few_speedups.insert(line);
          break;
        case Drafted::kDrafted:
          report.most_speedups = std::max(report.most_speedups, speedups);
          drafts.push_back(std::move(d));
          break;
      }
    }
    if (options.bootstrap > 0) {
      parallel_for(drafts.size(), [&](size_t k) {
        Series& s = drafts[k].series;
        Rng rng(options.seed ^ fnv1a(s.line.name + '\n' + family_name));
        s.p_value = slope_permutation_p(family, drafts[k].experiments, options.bootstrap, &rng);
      });
    }
    const size_t done_before = progress->done;
    bootstrap(f, &drafts, options, options.time_matching, &family_rng, &progress->done);
    trend_test.join();
    if (trend.baselines > 0) {
      report.drift.push_back(
          DriftRow{key.point, key.kind, key.level, trend.baselines, f.match.matching.k,
                   f.match.matching.clock == Clock::kRun ? "run" : "profile", trend.early,
                   trend.late, trend.change, trend.p_value, trend.length_effect});
    }
    progress->done = done_before + f.obs.size();
    for (SeriesDraft& d : drafts) {
      shown.insert(d.series.line.name);
      report.series.push_back(std::move(d.series));
    }
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
  // A line flagged significant outranks every line that is not, and a line too thinly measured
  // for an interval never outranks one that has an interval: a large value with an interval
  // across zero could be noise, and a line ranked first should be one that is known to help.
  // (By name: the order is the name's alone.)
  auto tier = [order](const Series& s) {
    if (order == SortOrder::kName) {
      return 0;
    }
    return s.significant ? 0 : s.impact.has_interval ? 1 : 2;
  };
  std::stable_sort(series->begin(), series->end(), [&](const Series& a, const Series& b) {
    if (tier(a) != tier(b)) {
      return tier(a) < tier(b);
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
