// Checking a profile's prediction against an achieved speedup (see compare_prediction.h).
#include "commands/compare_prediction.h"

#include <unistd.h>

#include <algorithm>
#include <map>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "common/profile_input.h"
#include "config/file_line.h"
#include "record/profile_format.h"

namespace coz::cli {
namespace {

// A build's line samples and the point's visits over its profiled runs.
struct LineCount {
  double samples = 0;
  double visits = 0;
  size_t runs = 0;
};

bool count_line(const PredictionRequest& r, const Build& build, const std::string& line,
                const std::string& point, const LaunchSettings& settings, LineCount* out,
                std::string* error) {
  RunConfig config;
  config.output = settings.counts_dir + "/line.coz";
  config.fixed_line = line;
  config.fixed_speedup = 0;
  config.end_to_end = true;
  // At least `runs` runs, and more (up to kMaxRuns) until the line has kEnoughSamples: a short
  // program's few runs hold too few samples to tell its speedup to a few points.
  constexpr size_t kMaxRuns = 30;
  constexpr double kEnoughSamples = 1000;  // the line speedup to about +-5 points (95%)
  for (size_t i = 0;
       i < std::max(r.runs, kMaxRuns) && (i < r.runs || out->samples < kEnoughSamples) &&
       (i < r.runs || out->samples > 0);  // none in the first runs: the line is not hot here
       i++) {
    unlink(config.output.c_str());
    LaunchResult run;
    if (!launch_profiled(build.command, build.path, config, settings, &run, error)) {
      return false;
    }
    std::vector<Record> records;
    std::vector<ParseError> errors;
    std::string ignored;
    if (!run.succeeded || !read_profile(config.output, &records, &errors, &ignored)) {
      continue;
    }
    out->runs++;
    for (const Record& rec : records) {
      if (rec.kind == RecordKind::kSamples && same_line(rec.text(vocab::key::kLocation), line)) {
        out->samples += static_cast<double>(rec.u64(vocab::key::kCount));
      } else if (rec.kind == RecordKind::kThroughputPoint && rec.text(vocab::key::kName) == point) {
        out->visits += static_cast<double>(rec.u64(vocab::key::kDelta));
      } else if (rec.kind == RecordKind::kLatencyPoint && rec.text(vocab::key::kName) == point) {
        out->visits += static_cast<double>(rec.u64(vocab::key::kDepartures));
      }
    }
  }
  unlink(config.output.c_str());
  return true;
}

// The point to check: the one asked for, else the first point the comparison measured; a
// latency point's latency, which is what a profile predicts for it.
const analysis::MetricComparison* point_compared(const PredictionRequest& r,
                                                 const analysis::Comparison& c) {
  const analysis::MetricComparison* found = nullptr;
  for (const analysis::MetricComparison& m : c.metrics) {
    if (!m.wall_time && (r.point.empty() || m.name == r.point) &&
        (!found || (found->name == m.name && m.latency))) {
      found = &m;
    }
  }
  return found;
}

// The line's series at `point`: of the kind asked for (the profile's latency series for a
// latency), at the first load level found, else any.
const analysis::Series* find_series(const analysis::Report& report, const std::string& point,
                                    const std::string& line, bool latency) {
  const analysis::PointMetric kind =
      latency ? analysis::PointMetric::kLatency : analysis::PointMetric::kThroughput;
  const analysis::Series* found = nullptr;
  for (const analysis::Series& s : report.series) {
    if ((point.empty() || s.point == point) && same_line(s.line.name, line) &&
        (!found || (found->kind != kind && s.kind == kind))) {
      found = &s;
    }
  }
  return found;
}

}  // namespace

bool preflight_prediction(const PredictionRequest& r, std::string* error) {
  analysis::ProfileData data;
  if (!read_profiles({r.profile}, "coz compare", &data)) {
    *error = "cannot read the profile " + r.profile + " (said above); check --profile";
    return false;
  }
  analysis::Report report = analysis::analyse(data, analysis::AnalysisOptions{});
  if (!find_series(report, r.point, r.line, false)) {
    *error = "the profile " + r.profile + " has no curve for " + r.line +
             (r.point.empty() ? "" : " at '" + r.point + "'") + " (coz report " + r.profile +
             " lists the lines it has); check --line and --point";
    return false;
  }
  return true;
}

bool same_line(const std::string& location, const std::string& spec) {
  FileLine want, got;
  if (!parse_file_line(spec, &want) || !parse_file_line(location, &got) || want.line != got.line) {
    return false;
  }
  // Either may be the longer: a profile may name files as the compiler was given them.
  const std::string& a = got.file.size() >= want.file.size() ? got.file : want.file;
  const std::string& b = got.file.size() >= want.file.size() ? want.file : got.file;
  return a == b || (a.size() > b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0 &&
                    a[a.size() - b.size() - 1] == '/');
}

bool check_prediction(const PredictionRequest& r, const Build& old_build, const Build& new_build,
                      const LaunchSettings& settings, const analysis::Comparison& comparison,
                      output::PredictionCheck* check, std::string* error) {
  check->asked = true;
  check->line = r.line;
  const analysis::MetricComparison* m = point_compared(r, comparison);
  if (!m) {
    check->problem = r.point.empty()
                         ? "no progress point was compared: a prediction is for a progress point"
                         : "the progress point '" + r.point + "' was not compared";
    return true;
  }
  check->point = m->name;
  LineCount before, after;
  if (!count_line(r, old_build, r.line, m->name, settings, &before, error) ||
      !count_line(r, new_build, r.new_line.empty() ? r.line : r.new_line, m->name, settings, &after,
                  error)) {
    return false;
  }
  analysis::LineSpeedup achieved_line;
  if (!analysis::line_speedup(before.samples, before.visits, after.samples, after.visits,
                              r.confidence, &achieved_line)) {
    check->problem = "the old build's profiled runs took no sample of " + r.line +
                     " (or made no progress): its speedup cannot be measured";
    return true;
  }
  const double line_speedup = achieved_line.value;
  check->line_speedup = line_speedup;
  check->line_low = achieved_line.low;
  check->line_high = achieved_line.high;
  check->old_samples = before.samples / before.visits;
  check->new_samples = after.samples / after.visits;
  if (m->has_interval) {
    check->achieved = true;
    check->achievement = m->speedup;
    check->a_low = m->low;
    check->a_high = m->high;
  }
  analysis::ProfileData data;
  if (!read_profiles({r.profile}, "coz compare", &data)) {
    check->problem = "the profile " + r.profile + " could not be read";
    return true;
  }
  analysis::AnalysisOptions options;
  options.confidence = r.confidence;
  // Read at the line's speedup and at both ends of its interval: the prediction's interval spans
  // the three, so it carries the uncertainty of the line's own speedup (from its samples) too.
  const double ends[2] = {std::max(0.0, achieved_line.low), achieved_line.high};
  options.predict_at = {line_speedup, ends[0], ends[1]};
  for (int step = 1; step <= 20; step++) {  // the fitted curve, for the page
    options.predict_at.push_back(step * 0.05);
  }
  analysis::Report report = analysis::analyse(data, options);
  const analysis::Series* found = find_series(report, m->name, r.line, m->latency);
  if (found && !found->curve.empty()) {
    const analysis::Series& s = *found;
    for (const analysis::Prediction& p : s.predicted) {
      if (p.line_speedup == line_speedup && p.program_speedup.has_interval) {
        check->predicted = true;
        check->prediction = p.program_speedup.value;
        check->p_low = p.program_speedup.low;
        check->p_high = p.program_speedup.high;
      }
    }
    for (const analysis::Prediction& p : s.predicted) {  // the ends, where the curve reaches them
      if (check->predicted && (p.line_speedup == ends[0] || p.line_speedup == ends[1]) &&
          p.program_speedup.has_interval) {
        check->p_low = std::min(check->p_low, p.program_speedup.low);
        check->p_high = std::max(check->p_high, p.program_speedup.high);
      }
    }
    if (check->predicted && achieved_line.low <= 0) {
      check->p_low = std::min(check->p_low, 0.0);  // no line speedup, no program speedup
    }
    double largest = s.curve.back().line_speedup;
    if (check->predicted && ends[1] > largest + 1e-9) {
      check->note = "the line speedup's interval reaches past the profile's largest experiment (" +
                    std::to_string(static_cast<int>(largest * 100 + 0.5)) +
                    "%): the prediction's interval stops there";
    }
    std::map<double, double> fit = {{0.0, 0.0}};  // every point read from the fitted curve
    for (const analysis::Prediction& p : s.predicted) {
      fit[p.line_speedup] = p.program_speedup.value;
    }
    for (const auto& [x, y] : fit) {
      check->fit.push_back({x, y, y, y});
    }
    for (const analysis::CurvePoint& c : s.curve) {
      const analysis::Estimate& e = c.program_speedup;
      check->curve.push_back({c.line_speedup, e.value, e.has_interval ? e.low : e.value,
                              e.has_interval ? e.high : e.value});
    }
    if (!check->predicted) {
      check->problem = "the profile's experiments on " + r.line + " reach only " +
                       std::to_string(static_cast<int>(s.curve.back().line_speedup * 100 + 0.5)) +
                       "% line speedup, below the " +
                       std::to_string(static_cast<int>(line_speedup * 100 + 0.5)) +
                       "% achieved (or give it no interval): profile longer";
      return true;
    }
  }
  if (!check->predicted) {
    check->problem = line_speedup <= 0 ? "the line did not get faster (" +
                                             std::to_string(static_cast<int>(line_speedup * 100)) +
                                             "% by its samples): there is no prediction to check"
                                       : "the profile has no curve for " + r.line + " at '" +
                                             m->name + "' (coz report shows the lines it has)";
    return true;
  }
  if (!check->achieved) {
    check->problem = "too few layouts for an interval of the achieved speedup";
    return true;
  }
  check->consistent = analysis::consistent(check->prediction, check->p_low, check->p_high,
                                           check->achievement, check->a_low, check->a_high);
  return true;
}

}  // namespace coz::cli
