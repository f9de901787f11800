// The analysis options of `coz report` and `coz plot` (see analysis_options.h).
#include "common/analysis_options.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "analysis/causal_profile.h"

namespace coz::cli {

bool parse_number(const std::string& text, double low, double high, double* out) {
  char* end = nullptr;
  errno = 0;
  double v = strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !(v >= low && v <= high)) {
    return false;
  }
  *out = v;
  return true;
}

void add_analysis_options(CLI::App* app, analysis::AnalysisOptions* options, size_t* min_points,
                          const std::string& min_points_help) {
  add_value_option(app, "--min-points", "N", min_points_help, false,
                   [min_points](const std::string& v, std::string* error) {
                     double d;
                     if (!parse_number(v, 2, 21, &d) || d != static_cast<size_t>(d)) {
                       *error =
                           "--min-points takes a whole number from 2 to 21 (there are 21 "
                           "speedups, 0% to 100%)";
                       return false;
                     }
                     *min_points = static_cast<size_t>(d);
                     return true;
                   });
  add_value_option(app, "--confidence", "C", "of every interval (default 0.95)", false,
                   [options](const std::string& v, std::string* error) {
                     if (!parse_number(v, 0.5, 0.999, &options->confidence)) {
                       *error = "--confidence takes a number from 0.5 to 0.999, e.g. 0.95";
                       return false;
                     }
                     return true;
                   });
  add_value_option(
      app, "--bootstrap", "N", "bootstrap replicates, 100 or more (default 1000; 0: no intervals)",
      false, [options](const std::string& v, std::string* error) {
        double d;
        // Fewer than 100 replicates cannot place a 95% interval's ends.
        if (!parse_number(v, 0, 100000, &d) || d != static_cast<size_t>(d) || (d > 0 && d < 100)) {
          *error =
              "--bootstrap takes 0 (no intervals) or a whole number of replicates "
              "from 100 to 100000";
          return false;
        }
        options->bootstrap = static_cast<size_t>(d);
        return true;
      });
  add_value_option(app, "--seed", "N", "bootstrap random seed (default 1)", false,
                   [options](const std::string& v, std::string* error) {
                     char* end = nullptr;
                     errno = 0;
                     unsigned long long seed = strtoull(v.c_str(), &end, 10);
                     if (v.empty() || v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0) {
                       *error = "--seed takes a whole number from 0 to 18446744073709551615";
                       return false;
                     }
                     options->seed = seed;
                     return true;
                   });
  add_value_option(app, "--fdr", "Q",
                   "false discovery rate for the significance flags (default 0.05)", false,
                   [options](const std::string& v, std::string* error) {
                     if (!parse_number(v, 0.0001, 0.5, &options->fdr)) {
                       *error = "--fdr takes a rate from 0.0001 to 0.5, e.g. 0.05";
                       return false;
                     }
                     return true;
                   });
  char floor_help[160];
  snprintf(floor_help, sizeof floor_help,
           "flag a line only when its impact is at least P%% from 0 (default %g: the profiler's "
           "measured bias on lines that change nothing)",
           analysis::AnalysisOptions::kDefaultFloor * 100);
  add_value_option(app, "--floor", "P", floor_help, false,
                   [options](const std::string& v, std::string* error) {
                     double percent;
                     if (!parse_number(v, 0, 100, &percent)) {
                       *error = "--floor takes a percentage from 0 to 100, e.g. 2";
                       return false;
                     }
                     options->floor = percent / 100;
                     return true;
                   });
  add_switch(app, "--unmatched",
             "compare experiments with every 0% baseline, not those of the same time in the run",
             [options] { options->time_matching = false; });
}

}  // namespace coz::cli
