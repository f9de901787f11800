// Throughput and latency against load (see scalability.h).
#include "analysis/scalability.h"

#include <map>
#include <set>
#include <tuple>

#include "analysis/series_builder.h"
#include "analysis/statistics.h"

namespace coz::analysis {

std::vector<ScalabilityRow> scalability_table(const ProfileData& data,
                                              const AnalysisOptions& options) {
  struct Cell {
    std::vector<Observation> obs;
    std::set<size_t> runs;
    double load_weighted = 0;
    double load_duration = 0;
  };
  std::map<std::tuple<std::string, int, LoadLevel>, Cell> cells;
  for (const Experiment& e : data.experiments()) {
    if (speedup_key(e.speedup) != 0) {
      continue;  // a line speedup changes the rate; only baselines measure the load itself
    }
    for (const PointCounts& p : e.points) {
      Cell& c = cells[{p.name, static_cast<int>(p.kind), e.level}];
      c.obs.push_back(Observation{0, 0, e.duration_ns, p.visits, p.in_flight_ns});
      c.runs.insert(e.run);
      if (e.load_achieved >= 0) {
        c.load_weighted += e.load_achieved * e.duration_ns;
        c.load_duration += e.duration_ns;
      }
    }
  }

  std::vector<ScalabilityRow> rows;
  Rng rng(options.seed);
  std::map<std::pair<std::string, int>, double> lowest;  // throughput at each point's lowest level
  for (const auto& [key, cell] : cells) {
    ScalabilityRow row;
    row.point = std::get<0>(key);
    row.kind = static_cast<PointMetric>(std::get<1>(key));
    row.level = std::get<2>(key);
    row.experiments = cell.obs.size();
    row.runs = cell.runs.size();
    if (cell.load_duration > 0) {
      row.achieved_load = cell.load_weighted / cell.load_duration;
    }
    Group all = group_by_speedup(cell.obs, nullptr)[0];
    row.throughput_per_s.value = all.duration_ns > 0 ? all.visits / all.duration_ns * 1e9 : 0;
    row.latency_ns.value =
        row.kind == PointMetric::kLatency ? std::max(0.0, all.value_ns(row.kind)) : 0;
    if (options.bootstrap > 0 && cell.obs.size() >= 2) {
      std::vector<double> tput, lat;
      std::vector<size_t> pick(cell.obs.size());
      for (size_t b = 0; b < options.bootstrap; b++) {
        for (size_t& i : pick) {
          i = rng.below(cell.obs.size());
        }
        Group g = group_by_speedup(cell.obs, &pick)[0];
        if (g.duration_ns > 0) {
          tput.push_back(g.visits / g.duration_ns * 1e9);
        }
        if (row.kind == PointMetric::kLatency && g.value_ns(row.kind) >= 0) {
          lat.push_back(g.value_ns(row.kind));
        }
      }
      if (tput.size() * 2 >= options.bootstrap) {
        Interval in = percentile_interval(&tput, options.confidence);
        row.throughput_per_s = Estimate{row.throughput_per_s.value, true, in.low, in.high};
      }
      if (lat.size() * 2 >= options.bootstrap) {
        Interval in = percentile_interval(&lat, options.confidence);
        row.latency_ns = Estimate{row.latency_ns.value, true, in.low, in.high};
      }
    }
    auto base =
        lowest.emplace(std::make_pair(row.point, std::get<1>(key)), row.throughput_per_s.value)
            .first;
    row.relative_throughput = base->second > 0 ? row.throughput_per_s.value / base->second : 0;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace coz::analysis
