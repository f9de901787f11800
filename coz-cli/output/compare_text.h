// `coz compare`'s result as text for the terminal and as JSON: the comparison of each measure
// (analysis/comparison.h) and, when a profile's prediction was checked, the line's achieved
// speedup and the two speedups side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/comparison.h"

namespace coz::output {

// A profile's prediction for one line, checked against what the new build achieved.
struct PredictionCheck {
  bool asked = false;       // --profile and --line given
  std::string line;         // FILE:LINE as given
  std::string point;        // the progress point compared (empty: none matched)
  std::string problem;      // why no prediction could be read (empty when one was)
  double line_speedup = 0;  // achieved by the line itself, from its samples (0..1, may be < 0)
  double line_low = 0;      // and its interval (analysis::line_speedup)
  double line_high = 0;
  double old_samples = 0;  // the line's samples per visit of the point, in each build
  double new_samples = 0;
  bool predicted = false;
  // The program speedup at line_speedup, from the profile's curve, with an interval over the
  // line speedup's interval too.
  double prediction = 0;
  double p_low = 0;
  double p_high = 0;
  bool achieved = false;
  double achievement = 0;  // the point's speedup from the comparison
  double a_low = 0;
  double a_high = 0;
  bool consistent = false;
  std::string note;  // a caveat on the prediction's interval, or empty
  // The profile's curve for the line at the point (the page draws it): each measured line speedup
  // with its program speedup and interval, and the fitted curve at steps of the line speedup.
  struct Point {
    double x = 0;
    double y = 0;
    double low = 0;
    double high = 0;
  };
  std::vector<Point> curve;
  std::vector<Point> fit;  // low and high unused
};

struct CompareSummary {
  std::string old_command;  // as the user typed them, for the heading
  std::string new_command;
  size_t layouts = 0;
  size_t repeats = 0;
  double confidence = 0.95;
  double precision = 0.01;
  bool fixed_layout = false;        // every run at one layout (--fixed-layout)
  bool address_space_fixed = true;  // randomisation off: runs at a layout repeat it
  double seconds = 0;               // the comparison's own time
  uint64_t seed = 0;                // the layouts' and the order's (--seed repeats them)
};

std::string compare_text(const CompareSummary& summary, const analysis::Comparison& comparison,
                         const PredictionCheck& check);
// With each run's values (`runs`, in the order they ran), which the page draws.
std::string compare_json(const CompareSummary& summary, const analysis::Comparison& comparison,
                         const PredictionCheck& check,
                         const std::vector<analysis::ComparedRun>& runs);

}  // namespace coz::output
