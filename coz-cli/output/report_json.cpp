// The report as JSON (schema: REPORT_JSON.md) and as CSV.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/display_names.h"
#include "analysis/processes.h"
#include "output/json_writer.h"
#include "output/report_output.h"
#include "output/terminal_text.h"

namespace coz::output {
namespace {

using analysis::Estimate;
using analysis::PointMetric;

const char* kind_name(PointMetric k) {
  return k == PointMetric::kThroughput ? "throughput" : "latency";
}

void estimate(JsonWriter* w, std::string_view key, const Estimate& e) {
  w->begin_object(key).value("value", e.value);
  if (e.has_interval) {
    w->value("low", e.low).value("high", e.high);
  } else {
    w->null("low").null("high");
  }
  w->end_object();
}

// The distinct non-empty values of a text field of the runs, in the order they first appear.
void distinct_texts(JsonWriter* w, std::string_view key, const std::vector<analysis::Run>& runs,
                    std::string analysis::Run::*field) {
  w->begin_array(key);
  std::vector<std::string> seen;
  for (const analysis::Run& run : runs) {
    const std::string& text = run.*field;
    if (!text.empty() && std::find(seen.begin(), seen.end(), text) == seen.end()) {
      seen.push_back(text);
      w->value("", text);
    }
  }
  w->end_array();
}

// A pid or parent as JSON: null when the profile does not say.
void pid(JsonWriter* w, std::string_view key, uint64_t id) {
  if (id == 0) {
    w->null(key);
  } else {
    w->value(key, static_cast<size_t>(id));
  }
}

// Every run's processes, the root of each first (present when a run had several).
void processes(JsonWriter* w, const std::vector<analysis::Run>& runs) {
  w->begin_array("processes");
  for (size_t n = 0; n < runs.size(); n++) {
    for (const analysis::Process& p : runs[n].processes) {
      w->begin_object().value("run", n);
      pid(w, "pid", p.pid);
      pid(w, "parent", p.parent);
      w->value("program", p.program).value("root", p.root);
      if (!p.host.empty()) {
        w->value("host", p.host);  // a run across hosts (added within version 1)
      }
      w->end_object();
    }
  }
  w->end_array();
}

}  // namespace

std::vector<size_t> ranks_in_groups(const analysis::Report& report) {
  std::vector<size_t> ranks;
  for (size_t i = 0; i < report.series.size(); i++) {
    const analysis::Series& s = report.series[i];
    const analysis::Series* prev = i ? &report.series[i - 1] : nullptr;
    bool same = prev && s.point == prev->point && s.kind == prev->kind && s.level == prev->level;
    ranks.push_back(same ? ranks.back() + 1 : 1);
  }
  return ranks;
}

std::unordered_map<std::string, std::string> display_lines(const analysis::Report& report) {
  std::vector<analysis::Location> lines;
  for (const analysis::Series& s : report.series) {
    lines.push_back(s.line);
  }
  return analysis::display_locations(lines);
}

namespace {

void settings(JsonWriter* w, const analysis::AnalysisOptions& o, const std::string& sort) {
  w->begin_object("settings")
      .value("confidence", o.confidence)
      .value("bootstrap", o.bootstrap)
      .value("seed", static_cast<size_t>(o.seed))
      .value("min_speedups", o.min_speedups)
      .value("phase_correction", o.phase_correction)
      .value("fdr", o.fdr)
      .value("fdr_method", "benjamini-hochberg")
      .value("floor", o.floor)
      .value("time_matching", o.time_matching)
      .value("sort", sort)
      .end_object();
}

void inputs(JsonWriter* w, const std::vector<analysis::InputFile>& files) {
  w->begin_array("inputs");
  for (const analysis::InputFile& in : files) {
    w->begin_object().value("file", in.path).value("records", in.records).begin_array("errors");
    for (const ParseError& e : in.errors) {
      w->begin_object().value("line", e.line).value("message", e.message).end_object();
    }
    w->end_array().value("errors_left_out", in.errors_left_out).end_object();
  }
  w->end_array();
}

void summary(JsonWriter* w, const analysis::Report& r, const std::vector<analysis::Run>& runs) {
  w->begin_object("summary")
      .value("runs", r.runs)
      .value("experiments", r.experiments)
      .value("runtime_ns", r.runtime_ns)
      .value("lines_tested", r.lines_tested)
      .value("saturated", r.saturated);
  distinct_texts(w, "programs", runs, &analysis::Run::program);
  distinct_texts(w, "off_cpu", runs, &analysis::Run::off_cpu);
  distinct_texts(w, "samplers", runs, &analysis::Run::sampler);
  w->value("series", r.series.size())
      .value("dropped_no_baseline", r.dropped_no_baseline)
      .value("dropped_few_speedups", r.dropped_few_speedups)
      .end_object();
}

void diagnosis(JsonWriter* w, const analysis::Diagnosis& d) {
  if (d.code.empty()) {
    w->null("diagnosis");
    return;
  }
  w->begin_object("diagnosis").value("code", d.code).value("message", d.message).end_object();
}

void warnings(JsonWriter* w, const std::vector<std::string>& texts) {
  w->begin_array("warnings");
  for (const std::string& s : texts) {
    w->value("", s);
  }
  w->end_array();
}

void progress_points(JsonWriter* w, const std::vector<analysis::ProgressPointInfo>& points) {
  w->begin_array("progress_points");
  for (const analysis::ProgressPointInfo& p : points) {
    w->begin_object()
        .value("name", p.name)
        .value("kind", kind_name(p.kind))
        .value("visits", p.visits)
        .end_object();
  }
  w->end_array();
}

void load_levels(JsonWriter* w, const std::vector<analysis::LoadLevel>& levels) {
  w->begin_array("load_levels");
  for (const analysis::LoadLevel& l : levels) {
    w->begin_object()
        .value("label", l.label())
        .value("target", l.target)
        .value("arrival_speedup_ns", l.arrival_speedup_ns)
        .end_object();
  }
  w->end_array();
}

// A line's samples: running and blocked, and by process when the runs had several.
void line_samples(JsonWriter* w, const analysis::LineSamples& samples, bool several) {
  w->value("samples", samples.running)
      .value("blocked_samples", samples.blocked)
      .value("blocked_share", samples.blocked_share)
      .value("off_cpu", samples.off_cpu);
  if (!several) {
    return;
  }
  w->begin_array("processes");
  for (const analysis::ProcessSamples& p : samples.processes) {
    w->begin_object();
    pid(w, "pid", p.pid);
    w->value("program", p.program)
        .value("samples", p.running)
        .value("blocked_samples", p.blocked)
        .end_object();
  }
  w->end_array();
}

void curve(JsonWriter* w, const analysis::Series& s) {
  w->begin_array("curve");
  for (const analysis::CurvePoint& p : s.curve) {
    w->begin_object()
        .value("line_speedup", p.line_speedup)
        .value("program_speedup", p.program_speedup.value);
    if (p.program_speedup.has_interval) {
      w->value("low", p.program_speedup.low).value("high", p.program_speedup.high);
    } else {
      w->null("low").null("high");
    }
    w->value("uncorrected", p.uncorrected)
        .value("experiments", p.experiments)
        .value("visits", p.visits)
        .value("duration_ns", p.duration_ns)
        .value(s.kind == PointMetric::kThroughput ? "period_ns" : "latency_ns", p.value_ns)
        .end_object();
  }
  w->end_array();
  w->begin_array("predicted");
  for (const analysis::Prediction& p : s.predicted) {
    w->begin_object().value("line_speedup", p.line_speedup);
    estimate(w, "program_speedup", p.program_speedup);
    w->end_object();
  }
  w->end_array();
}

// One line's series. A line that is no `file:line` is its own file, line 0 (profile_data rejects
// those, so only a caller's own data can have one).
void one_series(JsonWriter* w, const analysis::Series& s, size_t rank, const std::string& display,
                bool several) {
  w->begin_object()
      .value("rank", rank)
      .value("line", s.line.name)
      .value("display", display)
      .value("file", s.line.is_file_line() ? s.line.file : s.line.name)
      .value("line_number", static_cast<double>(s.line.number))
      .value("point", s.point)
      .value("kind", kind_name(s.kind))
      .value("load", s.level.label())
      .value("experiments", s.experiments)
      .value("phase_corrected", s.phase_corrected)
      .value("phase_factor", s.phase_factor);
  estimate(w, "impact", s.impact);
  estimate(w, "slope", s.slope);
  w->value("max_speedup", s.max_speedup)
      .value("p_value", s.p_value)
      .value("significant", s.significant)
      .value("contention", s.contention);
  if (s.caveat == analysis::Series::Caveat::kNone) {
    w->null("caveat");
  } else {
    w->value("caveat",
             s.caveat == analysis::Series::Caveat::kBelowFloor ? "below-floor" : "unconfirmed");
  }
  line_samples(w, s.samples, several);
  curve(w, s);
  w->end_object();
}

void all_series(JsonWriter* w, const analysis::Report& r, bool several) {
  w->begin_array("series");
  std::vector<size_t> ranks = ranks_in_groups(r);
  std::unordered_map<std::string, std::string> names = display_lines(r);
  for (size_t i = 0; i < r.series.size(); i++) {
    one_series(w, r.series[i], ranks[i], names.at(r.series[i].line.name), several);
  }
  w->end_array();
}

void drift(JsonWriter* w, const std::vector<analysis::DriftRow>& rows) {
  w->begin_array("drift");
  for (const analysis::DriftRow& d : rows) {
    w->begin_object()
        .value("point", d.point)
        .value("kind", kind_name(d.kind))
        .value("load", d.level.label())
        .value("baselines", d.baselines)
        .value("neighbours", d.neighbours)
        .value("clock", d.clock)
        .value("early_ns", d.early_ns)
        .value("late_ns", d.late_ns)
        .value("change", d.change)
        .value("p_value", d.p_value)
        .value("length_effect", d.length_effect)
        .value("notable", d.notable())
        .end_object();
  }
  w->end_array();
}

void scalability(JsonWriter* w, const std::vector<analysis::ScalabilityRow>& rows) {
  w->begin_array("scalability");
  for (const analysis::ScalabilityRow& row : rows) {
    w->begin_object()
        .value("point", row.point)
        .value("kind", kind_name(row.kind))
        .value("load", row.level.label())
        .value("target", row.level.target)
        .value("arrival_speedup_ns", row.level.arrival_speedup_ns);
    if (row.achieved_load >= 0) {
      w->value("achieved_load", row.achieved_load);
    } else {
      w->null("achieved_load");
    }
    w->value("experiments", row.experiments).value("runs", row.runs);
    estimate(w, "throughput_per_s", row.throughput_per_s);
    if (row.kind == PointMetric::kLatency) {
      estimate(w, "latency_ns", row.latency_ns);
    } else {
      w->null("latency_ns");
    }
    w->value("relative_throughput", row.relative_throughput).end_object();
  }
  w->end_array();
}

}  // namespace

// The report's sections in the schema's order, each from its own part of the report.
std::string render_json(const RenderContext& ctx) {
  const analysis::Report& r = ctx.report;
  const std::vector<analysis::Run>& runs = ctx.data.runs();
  const bool several = analysis::several_processes(ctx.data);
  JsonWriter w;
  w.begin_object()
      .value("schema", "coz-amp-report")
      .value("version", static_cast<double>(kReportSchemaVersion));
  settings(&w, r.options, ctx.sort);
  inputs(&w, ctx.data.inputs());
  summary(&w, r, runs);
  diagnosis(&w, r.diagnosis);
  warnings(&w, ctx.data.warnings());
  progress_points(&w, r.points);
  load_levels(&w, r.levels);
  if (several) {
    processes(&w, runs);
  }
  all_series(&w, r, several);
  drift(&w, r.drift);
  scalability(&w, r.scalability);
  w.end_object();
  return w.text();
}

std::string render_csv(const RenderContext& ctx) {
  std::string out =
      "point,kind,load,rank,line,impact,impact_low,impact_high,slope,slope_low,slope_high,"
      "significant,"
      "contention,phase_factor,line_speedup,program_speedup,low,high,uncorrected,experiments,"
      "visits,"
      "duration_ns,value_ns,display,samples,blocked_samples,blocked_share,off_cpu\n";
  auto quoted = [](const std::string& name) {
    std::string q = "\"";
    for (char c : terminal_safe(name)) {  // names come from the profile
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
  };
  auto num = [](double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  // Counts and nanosecond totals whole, every digit kept (%.6g would round 1234567890 ns).
  auto count = [&num](double v) {
    if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
      char buf[32];
      snprintf(buf, sizeof buf, "%.0f", v);
      return std::string(buf);
    }
    return num(v);
  };
  auto opt = [&num](bool has, double v) { return has ? num(v) : std::string(); };
  const analysis::Report& r = ctx.report;
  std::vector<size_t> ranks = ranks_in_groups(r);
  std::unordered_map<std::string, std::string> names = display_lines(r);
  for (size_t i = 0; i < r.series.size(); i++) {
    const analysis::Series& s = r.series[i];
    std::string tail = "," + quoted(names.at(s.line.name)) + "," + count(s.samples.running) + "," +
                       count(s.samples.blocked) + "," + num(s.samples.blocked_share) + "," +
                       (s.samples.off_cpu ? "1" : "0") + "\n";
    std::string head = quoted(s.point) + "," + kind_name(s.kind) + "," + s.level.label() + "," +
                       std::to_string(ranks[i]) + "," + quoted(s.line.name) + "," +
                       num(s.impact.value) + "," + opt(s.impact.has_interval, s.impact.low) + "," +
                       opt(s.impact.has_interval, s.impact.high) + "," + num(s.slope.value) + "," +
                       opt(s.slope.has_interval, s.slope.low) + "," +
                       opt(s.slope.has_interval, s.slope.high) + "," + (s.significant ? "1" : "0") +
                       "," + (s.contention ? "1" : "0") + "," + num(s.phase_factor);
    for (const analysis::CurvePoint& p : s.curve) {
      const Estimate& e = p.program_speedup;
      out += head + "," + num(p.line_speedup) + "," + num(e.value) + "," +
             opt(e.has_interval, e.low) + "," + opt(e.has_interval, e.high) + "," +
             num(p.uncorrected) + "," + std::to_string(p.experiments) + "," + count(p.visits) +
             "," + count(p.duration_ns) + "," + count(p.value_ns) + tail;
    }
  }
  return out;
}

}  // namespace coz::output
