// Comparing two builds over layouts (see comparison.h).
#include "analysis/comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/student_t.h"

namespace coz::analysis {
namespace {

// A metric's log speed in each run, or NaN when the run has none (a point it did not visit).
using Speeds = std::vector<double>;

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) {
    sum += x;
  }
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

// Sample variance (n - 1), 0 for fewer than two values.
double variance(const std::vector<double>& v) {
  if (v.size() < 2) {
    return 0;
  }
  double m = mean(v);
  double sum = 0;
  for (double x : v) {
    sum += (x - m) * (x - m);
  }
  return sum / static_cast<double>(v.size() - 1);
}

// The spreads of one program's runs: total, between layouts and within a layout (comparison.h).
struct Spread {
  double total = 0;
  double between = 0;    // variance of the layouts' means
  double within = 0;     // pooled variance of runs at one layout
  double within_df = 0;  // its degrees of freedom
  double mean_repeats = 0;
};

Spread spread_of(const std::map<size_t, std::vector<double>>& cells) {
  Spread s;
  std::vector<double> all, means;
  double ss = 0;
  double runs = 0;
  for (const auto& [layout, xs] : cells) {
    double m = mean(xs);
    means.push_back(m);
    for (double x : xs) {
      all.push_back(x);
      ss += (x - m) * (x - m);
    }
    s.within_df += static_cast<double>(xs.size()) - 1;
    runs += static_cast<double>(xs.size());
  }
  s.total = variance(all);
  s.between = variance(means);
  s.within = s.within_df > 0 ? ss / s.within_df : 0;
  s.mean_repeats = means.empty() ? 0 : runs / static_cast<double>(means.size());
  return s;
}

MetricComparison compare_metric(const std::string& name, bool wall_time, bool latency,
                                const std::vector<ComparedRun>& runs, const Speeds& speed,
                                const CompareOptions& options) {
  MetricComparison m;
  m.name = name;
  m.wall_time = wall_time;
  m.latency = latency;
  const bool time_like = wall_time || latency;
  std::map<size_t, std::vector<double>> cells[2];
  std::vector<double> logs[2];
  for (size_t i = 0; i < runs.size(); i++) {
    int p = runs[i].program != 0 ? 1 : 0;
    cells[p][runs[i].layout].push_back(speed[i]);
    logs[p].push_back(speed[i]);
  }
  // Geometric means, as the user reads them: seconds or visits per second.
  m.old_value = std::exp(time_like ? -mean(logs[0]) : mean(logs[0]));
  m.new_value = std::exp(time_like ? -mean(logs[1]) : mean(logs[1]));
  std::vector<double> differences;
  for (const auto& [layout, old_runs] : cells[0]) {
    if (auto it = cells[1].find(layout); it != cells[1].end()) {
      differences.push_back(mean(it->second) - mean(old_runs));
    }
  }
  m.layouts = differences.size();
  double d = differences.empty() ? mean(logs[1]) - mean(logs[0]) : mean(differences);
  m.speedup = 1 - std::exp(-d);
  m.ratio = std::exp(d);
  Spread spreads[2] = {spread_of(cells[0]), spread_of(cells[1])};
  m.total_spread = std::sqrt((spreads[0].total + spreads[1].total) / 2);
  if (spreads[0].within_df > 0 && spreads[1].within_df > 0) {
    double within = (spreads[0].within + spreads[1].within) / 2;
    double layout = 0;
    for (const Spread& s : spreads) {
      layout += std::max(0.0, s.between - s.within / s.mean_repeats) / 2;
    }
    m.run_spread = std::sqrt(within);
    m.layout_spread = std::sqrt(layout);
  }
  if (m.layouts < 2) {
    return m;
  }
  double df = static_cast<double>(m.layouts - 1);
  double se = std::sqrt(variance(differences) / static_cast<double>(m.layouts));
  double t = student_t_quantile((1 + options.confidence) / 2, df);
  m.has_interval = true;
  m.low = 1 - std::exp(-(d - t * se));
  m.high = 1 - std::exp(-(d + t * se));
  m.p_value = se > 0 ? 2 * (1 - student_t_cdf(std::fabs(d) / se, df)) : (d == 0 ? 1 : 0);
  m.verdict = m.low > 0 ? Verdict::kFaster : m.high < 0 ? Verdict::kSlower : Verdict::kNoDifference;
  // The precision is a half-width of the speedup near 0, where it equals one of log speed.
  double wanted = options.precision;
  double sd = se * std::sqrt(static_cast<double>(m.layouts));
  if (t * se > wanted && wanted > 0) {
    // The fewest layouts whose interval would be that narrow, at this spread.
    size_t n = m.layouts + 1;
    for (; n < 1000000; n += n / 8 + 1) {
      double tn = student_t_quantile((1 + options.confidence) / 2, static_cast<double>(n - 1));
      if (tn * sd / std::sqrt(static_cast<double>(n)) <= wanted) {
        break;
      }
    }
    m.layouts_needed = n;
  }
  return m;
}

}  // namespace

Comparison compare_runs(const std::vector<ComparedRun>& runs, const CompareOptions& options) {
  Comparison out;
  out.runs = runs.size();
  if (runs.empty()) {
    return out;
  }
  Speeds wall;
  for (const ComparedRun& r : runs) {
    wall.push_back(r.seconds > 0 ? -std::log(r.seconds) : NAN);
  }
  bool every_timed = true;
  for (double w : wall) {
    every_timed = every_timed && std::isfinite(w);
  }
  if (every_timed) {
    out.metrics.push_back(compare_metric("wall time", true, false, runs, wall, options));
  }
  std::set<std::string> names;
  for (const ComparedRun& r : runs) {
    for (const auto& [name, visits] : r.visits) {
      names.insert(name);
    }
  }
  for (const std::string& name : names) {
    Speeds speed;
    size_t missing = 0;
    for (const ComparedRun& r : runs) {
      double visits = 0;
      for (const auto& [n, v] : r.visits) {
        if (n == name) {
          visits += v;
        }
      }
      bool usable = visits > 0 && r.seconds > 0;
      missing += usable ? 0 : 1;
      speed.push_back(usable ? std::log(visits / r.seconds) : NAN);
    }
    if (missing > 0) {
      out.skipped.push_back("progress point '" + name + "' was not visited in " +
                            std::to_string(missing) + " of " + std::to_string(runs.size()) +
                            " runs");
      continue;
    }
    out.metrics.push_back(compare_metric(name, false, false, runs, speed, options));
    // A latency point: its mean latency too, 1 / (in flight / departures) as its speed.
    Speeds quickness;
    size_t timed = 0;
    for (const ComparedRun& r : runs) {
      double flying = 0, departures = 0;
      for (const auto& [n, v] : r.in_flight_ns) {
        flying += n == name ? v : 0;
      }
      for (const auto& [n, v] : r.visits) {
        departures += n == name ? v : 0;
      }
      bool usable = flying > 0 && departures > 0;
      timed += usable ? 1 : 0;
      quickness.push_back(usable ? std::log(departures / (flying / 1e9)) : NAN);
    }
    if (timed == runs.size()) {
      out.metrics.push_back(compare_metric(name, false, true, runs, quickness, options));
    }
  }
  return out;
}

bool line_speedup(double old_samples, double old_visits, double new_samples, double new_visits,
                  double confidence, LineSpeedup* out) {
  if (old_samples <= 0 || old_visits <= 0 || new_visits <= 0) {
    return false;
  }
  out->value = 1 - (new_samples / new_visits) / (old_samples / old_visits);
  double log_ratio =
      std::log(((new_samples + 0.5) / new_visits) / ((old_samples + 0.5) / old_visits));
  double se = std::sqrt(1 / (old_samples + 0.5) + 1 / (new_samples + 0.5));
  double z = normal_quantile((1 + confidence) / 2);
  out->low = 1 - std::exp(log_ratio + z * se);
  out->high = std::min(1.0, 1 - std::exp(log_ratio - z * se));
  out->low = std::min(out->low, out->value);
  out->high = std::max(out->high, out->value);
  return true;
}

bool consistent(double predicted, double p_low, double p_high, double achieved, double a_low,
                double a_high) {
  double p_half = (p_high - p_low) / 2;
  double a_half = (a_high - a_low) / 2;
  return std::fabs(predicted - achieved) <= std::sqrt(p_half * p_half + a_half * a_half);
}

}  // namespace coz::analysis
