// `coz compare --profile P --line FILE:LINE`: the profile's prediction for the line, read at the
// speedup the line itself achieved, against the speedup the comparison measured.
//
// The line's own speedup comes from its samples per visit of the progress point in each build:
// each build runs a few more times profiled (--fixed-speedup 0 --end-to-end on the line: every
// sample counted, no delay inserted), apart from the timed runs, which stay count-only. The
// profile is then analysed with a prediction at that speedup (AnalysisOptions::predict_at).
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "commands/compare_launch.h"
#include "output/compare_text.h"

namespace coz::cli {

struct PredictionRequest {
  std::string profile;   // --profile
  std::string line;      // --line: FILE:LINE in the old build
  std::string new_line;  // --new-line: in the new build, when it moved (else `line`)
  std::string point;     // --point: the progress point (else the only one, or the first compared)
  size_t runs = 3;       // profiled runs of each build
  double confidence = 0.95;
};

struct Build {
  std::vector<std::string> command;
  std::string path;
};

// Before any run: the profile reads and has a curve for the line (at the point, if named). False
// with `error` (one line, with what to do) otherwise.
bool preflight_prediction(const PredictionRequest& request, std::string* error);

// Fills the check; a problem (no samples of the line, no series in the profile, ...) is said in
// it rather than failing the comparison. False with `error` only when a run cannot start.
bool check_prediction(const PredictionRequest& request, const Build& old_build,
                      const Build& new_build, const LaunchSettings& settings,
                      const analysis::Comparison& comparison, output::PredictionCheck* check,
                      std::string* error);

// Whether a profile's location ("/src/a.c:12") is the line FILE:LINE names ("a.c:12"): the same
// number, and one file the same as the other or ending in "/" + it.
bool same_line(const std::string& location, const std::string& spec);

}  // namespace coz::cli
