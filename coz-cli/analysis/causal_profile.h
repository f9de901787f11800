// The causal profile: experiments grouped by (line, progress point, load level, speedup), each
// group's period or latency turned into a program speedup against the 0% baselines of the same
// time in the run (time_matching.h), corrected for phases (dissertation eq. 5.8), with bootstrap
// intervals that carry experiment-to-experiment variance, a least-squares slope, Coz's area-based
// impact and a significance flag per line that needs a clear effect above a stated floor.
// Pure: a ProfileData and options in, a Report out.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/line_samples.h"
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
  // Compare each experiment with the baselines nearest it in time (false: with all baselines).
  bool time_matching = true;
  // A line is flagged only when its impact is at least this far from 0: the profiler's own bias
  // on lines that change nothing (docs/reading.md), so small biases are not flagged
  // however many experiments make them statistically clear.
  double floor = kDefaultFloor;
  static constexpr double kDefaultFloor = 0.02;
  // Line speedups (0..1) to predict at besides kPredictedSpeedups, up to the largest measured
  // (coz compare reads the prediction at a line's achieved speedup).
  std::vector<double> predict_at;
};

struct Estimate {
  double value = 0;
  bool has_interval = false;  // needs enough experiments to resample
  double low = 0;
  double high = 0;
};

struct CurvePoint {
  // 0..1. The 0% point is the baselines of every line at this progress point and load level
  // (at 0% no line is sped up): its counts are theirs.
  double line_speedup = 0;
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
  double max_speedup = 0;  // largest program speedup on the curve
  double p_value = 1;      // permutation test: the line's speedup makes no difference
  // Rejected under Benjamini-Hochberg, with the impact and its interval above 0 and the impact
  // at least the floor.
  bool significant = false;
  // Rejected, slope below 0, the impact and its interval below 0 and at least the floor below
  // it: speeding the line slows the program (5.1.6).
  bool contention = false;
  // Why a line whose impact interval excludes 0 carries neither flag, so no such interval goes
  // unexplained: its impact is below the floor, or the permutation test (at the false discovery
  // rate over the point's lines) does not confirm it or disagrees on its sign (one interval in
  // twenty excludes 0 by chance).
  enum class Caveat { kNone, kBelowFloor, kUnconfirmed } caveat = Caveat::kNone;
  // The line's running and blocked samples over every run (the same in each of its series), and
  // whether it mostly waits (off_cpu): then less waiting helps, not faster code.
  LineSamples samples;
};

// How one progress point's baselines drift within a run (time_matching.h BaselineTrend).
struct DriftRow {
  std::string point;
  PointMetric kind = PointMetric::kThroughput;
  LoadLevel level;
  size_t baselines = 0;
  size_t neighbours = 0;  // baselines per reference (time_matching.h choose_matching)
  std::string clock;      // "run" (time within each run) or "profile" (runs one after another)
  // Period per visit or latency of the earliest third of the baselines in their runs, and of the
  // latest third (each relative to its run's baselines, times the overall mean).
  double early_ns = 0;
  double late_ns = 0;
  double change = 0;  // late / early - 1
  double p_value = 1;
  double length_effect = 0;  // long baselines against short ones of the same time, minus 1
  // Worth a word in the report: clear (p < 0.05) and at least 2%.
  bool notable() const { return p_value < 0.05 && (change >= 0.02 || change <= -0.02); }
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
  size_t saturated = 0;                     // experiments saturated (Experiment::saturated)
  size_t dropped_no_baseline = 0;           // lines left out: no series has a 0% baseline
  size_t dropped_few_speedups = 0;          // lines left out: a baseline, but too few speedups
  size_t most_speedups = 0;                 // the most distinct speedups any series reached
  std::vector<ScalabilityRow> scalability;  // when the profile holds more than one load level
  std::vector<DriftRow> drift;              // per progress point and load level with baselines
  Diagnosis diagnosis;
};

// How far analyse() has got, for a caller that shows it (read from another thread while it runs):
// experiments (each as seen from each progress point and load level) whose lines are done.
struct AnalysisProgress {
  std::atomic<size_t> done{0};
  std::atomic<size_t> total{0};
};

Report analyse(const ProfileData& data, const AnalysisOptions& options,
               AnalysisProgress* progress = nullptr);

enum class SortOrder { kImpact, kSlope, kMaxSpeedup, kName };

// Sorts series best first (by name for kName): lines flagged significant, then the others with an
// impact interval, then those without; ties by line name.
void rank(std::vector<Series>* series, SortOrder order);

// Ranks, then groups by (progress point, load level), keeping the ranking within each group:
// the order every output uses.
void rank_in_groups(std::vector<Series>* series, SortOrder order);

}  // namespace coz::analysis
