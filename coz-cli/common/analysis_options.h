// The analysis options `coz report` and `coz plot` share: --min-points, --confidence,
// --bootstrap, --seed and --fdr.
#pragma once

#include <cstddef>

#include "common/command_line.h"

namespace coz::analysis {
struct AnalysisOptions;
}

namespace coz::cli {

// Adds them to `app`. --min-points goes to `min_points` (the report drops lines below it; the
// page only starts with them hidden: `min_points_help` says which), the rest to `options`.
void add_analysis_options(CLI::App* app, analysis::AnalysisOptions* options, size_t* min_points,
                          const std::string& min_points_help);

// A number within [low, high]; false for anything else.
bool parse_number(const std::string& text, double low, double high, double* out);

}  // namespace coz::cli
