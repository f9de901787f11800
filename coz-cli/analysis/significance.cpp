// Which lines are flagged (see significance.h).
#include "analysis/significance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

namespace coz::analysis {

double slope_permutation_p(const Family& f, const std::vector<size_t>& members, size_t rounds,
                           Rng* rng) {
  // The baselines nearest each experiment, a few each: enough to compare with (the line's
  // experiments number about as many again), and the test's cost stays in proportion to the
  // line's experiments however many baselines the point has.
  constexpr size_t kBaselinesPerExperiment = 4;
  std::vector<size_t> set = members;
  for (size_t i : members) {
    const TimeMatch::Window& w = f.match.windows[i];
    size_t middle = static_cast<size_t>(
        std::lower_bound(f.match.baselines.begin() + static_cast<long>(w.left),
                         f.match.baselines.begin() + static_cast<long>(w.right), i,
                         [&f](size_t b, size_t e) {
                           Clock clock = f.match.matching.clock;
                           return time_on(clock, f.timed[b]) < time_on(clock, f.timed[e]);
                         }) -
        f.match.baselines.begin());
    const size_t wanted = kBaselinesPerExperiment + (w.self ? 1 : 0);
    size_t from = middle - std::min(middle - w.left, wanted / 2);
    size_t to = std::min(w.right, from + wanted);
    from = to - std::min(to - w.left, wanted);  // clipped on the right: take more on the left
    set.insert(set.end(), f.match.baselines.begin() + static_cast<long>(from),
               f.match.baselines.begin() + static_cast<long>(to));
  }
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  std::vector<double> xs, rates;
  for (size_t i : set) {
    if (f.obs[i].matched > 0 && f.obs[i].visits > 0) {
      xs.push_back(f.obs[i].speedup);
      rates.push_back(f.obs[i].visits / f.obs[i].matched);
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
  const Shuffler shuffler(xs.size());
  for (size_t r = 0; r < rounds; r++) {
    shuffler.shuffle(&xs, rng);
    extreme += std::fabs(ols_slope(xs)) >= measured;
  }
  return (static_cast<double>(extreme) + 1) / (static_cast<double>(rounds) + 1);
}

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
      const Estimate& i = s.impact;
      s.significant =
          rejected[k] && s.slope.value > 0 && i.value >= o.floor && i.has_interval && i.low > 0;
      s.contention =
          rejected[k] && s.slope.value < 0 && i.value <= -o.floor && i.has_interval && i.high < 0;
      bool clear_of_zero = i.has_interval && (i.low > 0 || i.high < 0);
      s.caveat = !clear_of_zero || s.significant || s.contention ? Series::Caveat::kNone
                 : std::fabs(i.value) < o.floor                  ? Series::Caveat::kBelowFloor
                                                                 : Series::Caveat::kUnconfirmed;
    }
  }
}

}  // namespace coz::analysis
