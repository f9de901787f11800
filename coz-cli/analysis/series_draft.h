// One line's series at one progress point and load level, drafted from its experiments in the
// family (bootstrap.h): the groups of its speedups, its curve against the family's baselines
// (phase-corrected, eq. 5.8), its slope, impact and predictions, ready for the permutation test
// and the bootstrap. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/causal_profile.h"
#include "analysis/line_samples.h"
#include "analysis/location.h"

namespace coz::analysis {

// What every line of one family is drafted with.
struct SeriesContext {
  const Family* family;
  std::string point;
  PointMetric kind;
  LoadLevel level;
  const std::map<std::string, Location>* lines;       // the lines tested, by name
  const std::map<std::string, double>* factors;       // phase-correction factors, by line
  const std::map<std::string, LineSamples>* sampled;  // each line's samples
  size_t min_speedups;
  const std::vector<double>* predict_at;  // AnalysisOptions::predict_at
};

enum class Drafted {
  kDrafted,
  kNoBaseline,   // the family has no baseline to compare with
  kFewSpeedups,  // fewer distinct speedups than min_speedups (baseline included), or than 2
};

// Drafts `line` from its experiments `members` (indices into the family's) into `out`; sets
// `speedups` (its distinct speedups, baseline included) unless there is no baseline.
Drafted draft_series(const SeriesContext& c, const std::string& line,
                     const std::vector<size_t>& members, SeriesDraft* out, size_t* speedups);

}  // namespace coz::analysis
