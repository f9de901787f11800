// The report as a terminal table, best lines first (see report_output.h).
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "analysis/processes.h"
#include "analysis/statistics.h"
#include "output/report_output.h"
#include "output/sample_text.h"
#include "output/terminal_text.h"

namespace coz::output {
namespace {

using analysis::PointMetric;

void appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string* out, const char* fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    size_t at = out->size();
    out->resize(at + static_cast<size_t>(n) + 1);
    vsnprintf(&(*out)[at], static_cast<size_t>(n) + 1, fmt, again);
    out->resize(at + static_cast<size_t>(n));
  }
  va_end(again);
}

std::string percent(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%+.1f%%", v * 100);
  return buf;
}

std::string family_title(const analysis::Series& s) {
  return "\"" + terminal_safe(s.point) + "\" (" +
         (s.kind == PointMetric::kThroughput ? "throughput" : "latency") + "), load " +
         s.level.label();
}

std::string rate(double per_s) {
  char buf[32];
  snprintf(buf, sizeof buf, per_s >= 100 ? "%.0f" : "%.3g", per_s);
  return buf;
}

std::string duration(double ns) {
  char buf[32];
  if (ns >= 1e9) {
    snprintf(buf, sizeof buf, "%.3gs", ns / 1e9);
  } else if (ns >= 1e6) {
    snprintf(buf, sizeof buf, "%.3gms", ns / 1e6);
  } else {
    snprintf(buf, sizeof buf, "%.3gus", ns / 1e3);
  }
  return buf;
}

// `text` wrapped to `width` columns, ending in a line feed.
std::string wrap(const std::string& text, size_t width) {
  return wrap_words(text, width) + "\n";
}

// The line name cut to `width` from the left (the end of a path says most), "..." marking it.
std::string fit_name(const std::string& name, size_t width) {
  if (name.size() <= width || width < 4) {
    return name;
  }
  return "..." + name.substr(name.size() - (width - 3));
}

// One (progress point, load level) group's lines. The @N% columns come from the curve fitted
// through the line's points (causal_profile.h `predicted`). When the table is wider than
// ctx.width, it gives up the @10%, @25% and @100% columns in that order, then shortens the line
// names (from the left) down to 16 characters.
void series_table(std::string* out, const RenderContext& ctx,
                  const std::unordered_map<std::string, std::string>& names, size_t first,
                  size_t end) {
  const analysis::Report& r = ctx.report;
  int conf = static_cast<int>(std::lround(r.options.confidence * 100));
  appendf(out, "\n%s: %zu line%s\n", family_title(r.series[first]).c_str(), end - first,
          end - first == 1 ? "" : "s");
  struct Row {
    std::string line, impact, at[4], flags;
    size_t experiments;
  };
  std::vector<Row> rows;
  const bool several = analysis::several_processes(ctx.data);
  char ci[32];
  snprintf(ci, sizeof ci, "impact [%d%% CI]", conf);
  size_t line_w = 4, impact_w = strlen(ci), flags_w = 0;
  for (size_t i = first; i < end; i++) {
    const analysis::Series& s = r.series[i];
    Row row;
    row.line = names.at(s.line.name);
    row.experiments = s.experiments;
    row.impact = estimate_text(s.impact);
    for (int k = 0; k < 4; k++) {
      row.at[k] = "-";
      for (const analysis::Prediction& p : s.predicted) {
        if (std::fabs(p.line_speedup - analysis::kPredictedSpeedups[k]) < 1e-9) {
          row.at[k] = percent(p.program_speedup.value);
        }
      }
    }
    auto flag = [&row](const std::string& f) { row.flags += (row.flags.empty() ? "" : " ") + f; };
    if (s.significant) {
      flag("significant");
    }
    if (s.contention) {
      flag("contention");
    }
    if (s.caveat == analysis::Series::Caveat::kBelowFloor) {
      flag("below floor");
    } else if (s.caveat == analysis::Series::Caveat::kUnconfirmed) {
      flag("unconfirmed");
    }
    if (s.phase_corrected && s.phase_factor < 0.95) {
      char buf[32];
      snprintf(buf, sizeof buf, "phase x%.2f", s.phase_factor);
      flag(buf);
    }
    std::string tags = sample_tags(s.samples, several);
    if (!tags.empty()) {
      flag(tags);
    }
    line_w = std::max(line_w, row.line.size());
    impact_w = std::max(impact_w, row.impact.size());
    flags_w = std::max(flags_w, row.flags.size());
    rows.push_back(std::move(row));
  }
  bool show[4] = {true, true, true, true};
  auto total = [&] {
    size_t w = 2 + 3 + 2 + line_w + 1 + impact_w + 6 + (flags_w ? 2 + flags_w : 0);
    for (bool b : show) {
      w += b ? 8 : 0;
    }
    return w;
  };
  for (int k : {0, 1, 3}) {
    if (ctx.width > 0 && total() > ctx.width) {
      show[k] = false;
    }
  }
  if (ctx.width > 0 && total() > ctx.width) {
    line_w = std::max(std::min<size_t>(16, line_w), line_w - std::min(line_w, total() - ctx.width));
  }
  const char* labels[4] = {"@10%", "@25%", "@50%", "@100%"};
  std::string header = "  " + std::string(3 - 1, ' ') + "#  ";
  appendf(&header, "%-*s %-*s", static_cast<int>(line_w), "line", static_cast<int>(impact_w), ci);
  for (int k = 0; k < 4; k++) {
    if (show[k]) {
      appendf(&header, " %7s", labels[k]);
    }
  }
  appendf(&header, " %5s%s", "exps", flags_w ? "  flags" : "");
  *out += header + "\n";
  for (size_t i = 0; i < rows.size(); i++) {
    const Row& row = rows[i];
    std::string line;
    appendf(&line, "  %3zu  %-*s %-*s", i + 1, static_cast<int>(line_w),
            fit_name(row.line, line_w).c_str(), static_cast<int>(impact_w), row.impact.c_str());
    for (int k = 0; k < 4; k++) {
      if (show[k]) {
        appendf(&line, " %7s", row.at[k].c_str());
      }
    }
    appendf(&line, " %5zu", row.experiments);
    if (!row.flags.empty()) {
      line += "  " + row.flags;
    }
    *out += line + "\n";
  }
}

// Every (progress point, load level) group in one table: a row per line, a column per group
// with the line's impact there ("*" significant, "!" contention). Rows go by the line's best rank
// in any group, then its best impact. When the table is wider than ctx.width the intervals go
// first, then line names are shortened.
void overview_table(std::string* out, const RenderContext& ctx,
                    const std::unordered_map<std::string, std::string>& names,
                    const std::vector<size_t>& ranks) {
  const analysis::Report& r = ctx.report;
  std::vector<size_t> group_of(r.series.size());
  std::vector<std::string> headers;
  std::set<analysis::LoadLevel> loads;
  for (const analysis::Series& s : r.series) {
    loads.insert(s.level);
  }
  for (size_t i = 0; i < r.series.size(); i++) {
    const analysis::Series& s = r.series[i];
    if (ranks[i] == 1) {
      headers.push_back("\"" + terminal_safe(s.point) + "\"" +
                        (s.kind == PointMetric::kLatency ? " latency" : "") +
                        (loads.size() > 1 ? " " + s.level.label() : ""));
    }
    group_of[i] = headers.size() - 1;
  }
  struct Line {
    std::string name, tag;
    size_t best_rank = SIZE_MAX;
    double best_impact = -INFINITY;
    std::vector<const analysis::Series*> cells;
  };
  std::map<std::string, Line> by_line;
  const bool several = analysis::several_processes(ctx.data);
  for (size_t i = 0; i < r.series.size(); i++) {
    const analysis::Series& s = r.series[i];
    Line& l = by_line[s.line.name];
    l.name = names.at(s.line.name);
    l.tag = sample_tags(s.samples, several);
    l.cells.resize(headers.size(), nullptr);
    l.cells[group_of[i]] = &s;
    l.best_rank = std::min(l.best_rank, ranks[i]);
    l.best_impact = std::max(l.best_impact, s.impact.value);
  }
  std::vector<const Line*> rows;
  for (const auto& [line, l] : by_line) {
    rows.push_back(&l);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Line* a, const Line* b) {
    return a->best_rank != b->best_rank ? a->best_rank < b->best_rank
                                        : a->best_impact > b->best_impact;
  });
  auto cell = [](const analysis::Series* s, bool interval) {
    if (!s) {
      return std::string("-");
    }
    return estimate_text(s->impact, interval) + (s->significant ? "*" : s->contention ? "!" : "");
  };
  bool intervals = true;
  size_t line_w = 4;
  std::vector<size_t> widths(headers.size());
  auto measure = [&] {
    size_t total = 2 + 3 + 2, tag_w = 0;
    for (const Line* l : rows) {
      line_w = std::max(line_w, l->name.size());
      tag_w = std::max(tag_w, l->tag.size());
    }
    total += tag_w ? 2 + tag_w : 0;
    for (size_t g = 0; g < headers.size(); g++) {
      widths[g] = headers[g].size();
      for (const Line* l : rows) {
        widths[g] = std::max(widths[g], cell(l->cells[g], intervals).size());
      }
      total += 2 + widths[g];
    }
    return total + line_w;
  };
  if (ctx.width > 0 && measure() > ctx.width) {
    intervals = false;
  }
  size_t total = measure();
  if (ctx.width > 0 && total > ctx.width) {
    line_w = std::max(std::min<size_t>(16, line_w), line_w - std::min(line_w, total - ctx.width));
  }
  int conf = static_cast<int>(std::lround(r.options.confidence * 100));
  std::set<std::string> points;
  for (const analysis::Series& s : r.series) {
    points.insert(s.point);
  }
  std::string groups = points.size() > 1 ? std::to_string(points.size()) + " progress points" : "";
  if (loads.size() > 1) {
    groups += (groups.empty() ? "" : " at ") + std::to_string(loads.size()) + " load levels";
  }
  appendf(out, "\n%s: %zu line%s, impact%s (* significant, ! contention)\n", groups.c_str(),
          rows.size(), rows.size() == 1 ? "" : "s",
          intervals ? (" [" + std::to_string(conf) + "% CI]").c_str() : "");
  std::string header;
  appendf(&header, "    #  %-*s", static_cast<int>(line_w), "line");
  for (size_t g = 0; g < headers.size(); g++) {
    appendf(&header, "  %-*s", static_cast<int>(widths[g]), headers[g].c_str());
  }
  while (header.back() == ' ') {
    header.pop_back();
  }
  *out += header + "\n";
  for (size_t i = 0; i < rows.size(); i++) {
    std::string line;
    appendf(&line, "  %3zu  %-*s", i + 1, static_cast<int>(line_w),
            fit_name(rows[i]->name, line_w).c_str());
    for (size_t g = 0; g < headers.size(); g++) {
      appendf(&line, "  %-*s", static_cast<int>(widths[g]),
              cell(rows[i]->cells[g], intervals).c_str());
    }
    if (!rows[i]->tag.empty()) {
      line += "  " + rows[i]->tag;
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    *out += line + "\n";
  }
  *out +=
      wrap("coz report --point NAME (or --each-point) shows full tables, with predicted speedups.",
           ctx.width > 0 && ctx.width < 100 ? ctx.width : 100);
}

void scalability_table(std::string* out, const analysis::Report& r) {
  if (r.scalability.empty()) {
    return;
  }
  int conf = static_cast<int>(std::lround(r.options.confidence * 100));
  std::string last;
  for (const analysis::ScalabilityRow& row : r.scalability) {
    std::string title = "\"" + terminal_safe(row.point) + "\"";
    if (title != last) {
      appendf(out, "\nscalability of %s (0%% experiments of every line):\n", title.c_str());
      appendf(out, "  %-16s %8s %-30s %9s %-12s %5s\n", "load", "achieved",
              (std::string("visits/s [") + std::to_string(conf) + "% CI]").c_str(), "relative",
              "latency", "exps");
      last = title;
    }
    char achieved[16] = "-";
    if (row.achieved_load >= 0) {
      snprintf(achieved, sizeof achieved, "%.2f", row.achieved_load);
    }
    std::string tput = rate(row.throughput_per_s.value);
    if (row.throughput_per_s.has_interval) {
      tput += " [" + rate(row.throughput_per_s.low) + ", " + rate(row.throughput_per_s.high) + "]";
    }
    char rel[16];
    snprintf(rel, sizeof rel, "%.2f", row.relative_throughput);
    std::string latency = row.kind == PointMetric::kLatency ? duration(row.latency_ns.value) : "-";
    appendf(out, "  %-16s %8s %-30s %9s %-12s %5zu\n", row.level.label().c_str(), achieved,
            tput.c_str(), rel, latency.c_str(), row.experiments);
  }
}

}  // namespace

std::string estimate_text(const analysis::Estimate& e, bool interval) {
  std::string text = percent(e.value);
  if (interval && e.has_interval) {
    char buf[64];
    snprintf(buf, sizeof buf, " [%+.1f, %+.1f]", e.low * 100, e.high * 100);
    text += buf;
  }
  return text;
}

std::string render_text(const RenderContext& ctx) {
  const analysis::Report& r = ctx.report;
  const size_t prose = ctx.width > 0 && ctx.width < 100 ? ctx.width : 100;
  std::string out, summary;
  appendf(&summary, "coz report: %zu run%s, %zu experiment%s, %zu line%s tested", r.runs,
          r.runs == 1 ? "" : "s", r.experiments, r.experiments == 1 ? "" : "s", r.lines_tested,
          r.lines_tested == 1 ? "" : "s");
  if (r.dropped_few_speedups > 0) {
    appendf(&summary, "; %zu with fewer than %zu speedups left out", r.dropped_few_speedups,
            r.options.min_speedups);
  }
  if (r.dropped_no_baseline > 0) {
    appendf(&summary, "; %zu without a 0%% baseline left out", r.dropped_no_baseline);
  }
  out += wrap(summary, prose);
  for (const std::string& w : ctx.data.warnings()) {
    out += wrap("warning: " + terminal_safe(w), prose);
  }
  if (r.saturated > 0) {
    std::string note;
    appendf(&note,
            "note: %zu of %zu experiments saturated: the threads making progress still owed more "
            "than %.0f%% of the experiment's time in delays at its end (a sped-up line running "
            "all the time beside them); their time counts only the delays those threads took",
            r.saturated, r.experiments, analysis::Experiment::kSaturatedShare * 100);
    out += wrap(note, prose);
  }
  for (const std::string& line : processes_lines(ctx.data)) {
    out += wrap(line, prose);
  }
  if (std::string line = sampler_line(ctx.data); !line.empty()) {
    out += wrap(line, prose);
  }
  std::vector<size_t> ranks = ranks_in_groups(r);
  std::unordered_map<std::string, std::string> names = display_lines(r);
  for (auto& [line, name] : names) {
    name = terminal_safe(name);  // names come from the profile
  }
  size_t groups = static_cast<size_t>(std::count(ranks.begin(), ranks.end(), size_t{1}));
  if (groups > 1 && !ctx.each_point) {
    overview_table(&out, ctx, names, ranks);
  }
  for (size_t first = 0; first < r.series.size() && (groups == 1 || ctx.each_point);) {
    size_t end = first + 1;
    while (end < r.series.size() && ranks[end] != 1) {
      end++;
    }
    series_table(&out, ctx, names, first, end);
    first = end;
  }
  scalability_table(&out, r);
  for (const analysis::DriftRow& d : r.drift) {
    if (d.notable() && !r.series.empty()) {
      std::string note;
      appendf(&note,
              "drift: at %s%s, the program's %s changes by %+.0f%% from the first third of the "
              "run to the last (%zu baselines, p = %.3f); %s",
              terminal_safe(d.point).c_str(),
              r.levels.size() > 1 ? (" " + d.level.label()).c_str() : "",
              d.kind == PointMetric::kThroughput ? "time per visit" : "latency", d.change * 100,
              d.baselines, d.p_value,
              r.options.time_matching ? "experiments are compared with baselines of the same time"
                                      : "not corrected (--unmatched)");
      out += "\n" + wrap(note, prose);
    }
  }
  if (!r.series.empty()) {
    int conf = static_cast<int>(std::lround(r.options.confidence * 100));
    std::string legend;
    appendf(&legend,
            "impact: mean program speedup over the measured line speedups (area under the curve); "
            "@N%%: predicted program speedup if the line ran N%% faster, from a curve fitted "
            "through its points (- beyond the speedups measured); %s%d%% intervals by bootstrap "
            "over experiments; a line without an interval ranks below every line with one; "
            "significant / contention: the line's speedup changes the program's (permutation "
            "test of the slope, %.0f%% false discovery rate, Benjamini-Hochberg), for the better "
            "/ the worse, by at least %g%% of impact (the floor: smaller effects are within the "
            "profiler's own bias); below floor / unconfirmed: the interval excludes 0 but the "
            "impact is below the floor / the permutation test does not confirm it at that rate "
            "(one interval in twenty is clear of 0 by chance); phase xF: scaled by the share of "
            "the run the line was active in (eq. 5.8); %s",
            r.options.phase_correction ? "" : "not phase-corrected; ", conf, r.options.fdr * 100,
            r.options.floor * 100,
            r.options.time_matching
                ? "each experiment is compared with the 0% experiments nearest it in the run"
                : "experiments are compared with every 0% experiment (--unmatched)");
    out += "\n" + wrap(legend, prose);
  }
  for (const std::string& legend :
       sample_legends(r.series, analysis::several_processes(ctx.data))) {
    out += wrap(legend, prose);
  }
  return out;
}

}  // namespace coz::output
