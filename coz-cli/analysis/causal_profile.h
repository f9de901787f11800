// The causal profile: experiments grouped by (line, progress point, load level, speedup), each
// group's period or latency turned into a program speedup against the line's own 0% baseline,
// corrected for phases (dissertation eq. 5.8), with bootstrap intervals, a least-squares slope,
// Coz's area-based impact and a false-discovery-controlled significance flag per line.
// Pure: a ProfileData and options in, a Report out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/location.h"
#include "analysis/profile_data.h"

namespace coz::analysis {

struct AnalysisOptions {
  size_t min_speedups = 5;   // lines with fewer distinct speedups (baseline included) are dropped
  double confidence = 0.95;  // of every interval
  size_t bootstrap = 1000;   // replicates; 0 skips intervals and significance
  uint64_t seed = 1;
  bool phase_correction = true;
  double fdr = 0.05;  // Benjamini-Hochberg false discovery rate
};

struct Estimate {
  double value = 0;
  bool has_interval = false;  // needs enough experiments to resample
  double low = 0;
  double high = 0;
};

struct CurvePoint {
  double line_speedup = 0;   // 0..1
  Estimate program_speedup;  // phase-corrected when the correction applies
  double uncorrected = 0;
  size_t experiments = 0;
  double visits = 0;  // throughput visits or latency arrivals
  double duration_ns = 0;
  double value_ns = 0;  // period per visit, or mean latency
};

// The line speedups the report predicts the program's at, from the fitted curve.
inline constexpr double kPredictedSpeedups[] = {0.10, 0.25, 0.50, 1.00};

struct Prediction {
  double line_speedup = 0;
  Estimate program_speedup;  // from the fitted curve, with a bootstrap interval
};

struct Series {
  Location line;  // parsed once, by ProfileData; grouped and ranked by its name
  std::string point;
  PointMetric kind = PointMetric::kThroughput;
  LoadLevel level;
  std::vector<CurvePoint> curve;  // by line speedup; the first is the 0% baseline
  // The curve fitted through the points (statistics.h fit_curve) at kPredictedSpeedups up to the
  // largest measured line speedup: what the report's @N% columns show.
  std::vector<Prediction> predicted;
  size_t experiments = 0;
  double phase_factor = 1;  // t_A / T from eq. 5.6; 1 when not corrected
  bool phase_corrected = false;
  Estimate impact;
  Estimate slope;
  double max_speedup = 0;    // largest program speedup on the curve
  double p_value = 1;        // permutation test: the line's speedup makes no difference
  bool significant = false;  // rejected under Benjamini-Hochberg, slope and impact above 0
  bool contention = false;   // rejected, slope below 0: speeding it slows the program (5.1.6)
};

struct ScalabilityRow {
  std::string point;
  PointMetric kind = PointMetric::kThroughput;
  LoadLevel level;
  double achieved_load = -1;  // duration-weighted mean of the experiments' `load`; -1 if none
  size_t experiments = 0;
  size_t runs = 0;
  Estimate throughput_per_s;       // visits per second of effective time
  Estimate latency_ns;             // latency points only
  double relative_throughput = 1;  // against the lowest level
};

// Why a report shows nothing, and what to do about it.
struct Diagnosis {
  std::string code;  // empty when there is something to show
  std::string message;
};

struct ProgressPointInfo {
  std::string name;
  PointMetric kind = PointMetric::kThroughput;
  double visits = 0;
};

struct Report {
  AnalysisOptions options;
  size_t runs = 0;
  size_t experiments = 0;
  double runtime_ns = 0;
  std::vector<ProgressPointInfo> points;
  std::vector<LoadLevel> levels;
  std::vector<Series> series;
  size_t lines_tested = 0;                  // distinct lines with at least one experiment
  size_t dropped_no_baseline = 0;           // lines left out: no series has a 0% baseline
  size_t dropped_few_speedups = 0;          // lines left out: a baseline, but too few speedups
  size_t most_speedups = 0;                 // the most distinct speedups any series reached
  std::vector<ScalabilityRow> scalability;  // when the profile holds more than one load level
  Diagnosis diagnosis;
};

Report analyse(const ProfileData& data, const AnalysisOptions& options);

enum class SortOrder { kImpact, kSlope, kMaxSpeedup, kName };

// Sorts series best first (by name for kName), a line with an impact interval before any line
// without; ties by line name.
void rank(std::vector<Series>* series, SortOrder order);

// Ranks, then groups by (progress point, load level), keeping the ranking within each group:
// the order every output uses.
void rank_in_groups(std::vector<Series>* series, SortOrder order);

}  // namespace coz::analysis
