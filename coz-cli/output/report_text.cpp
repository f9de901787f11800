// The report as a terminal table, best lines first (see report_output.h).
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>

#include "analysis/statistics.h"
#include "output/report_output.h"

namespace coz::output {
namespace {

using analysis::PointKind;

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
  return "\"" + s.point + "\" (" + (s.kind == PointKind::kThroughput ? "throughput" : "latency") +
         "), load " + s.level.label();
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

void series_table(std::string* out, const RenderContext& ctx,
                  const std::unordered_map<std::string, std::string>& names, size_t first,
                  size_t end) {
  const analysis::Report& r = ctx.report;
  int conf = static_cast<int>(std::lround(r.options.confidence * 100));
  appendf(out, "\n%s: %zu line%s\n", family_title(r.series[first]).c_str(), end - first,
          end - first == 1 ? "" : "s");
  char ci[32];
  snprintf(ci, sizeof ci, "impact [%d%% CI]", conf);
  appendf(out, "  %3s  %-28s %-26s %7s %7s %7s %7s %5s  %s\n", "#", "line", ci, "@10%", "@25%",
          "@50%", "@100%", "exps", "flags");
  for (size_t i = first; i < end; i++) {
    const analysis::Series& s = r.series[i];
    std::vector<analysis::XY> curve;
    for (const analysis::CurvePoint& p : s.curve) {
      curve.push_back({p.line_speedup, p.program_speedup.value});
    }
    std::string impact = percent(s.impact.value);
    if (s.impact.has_interval) {
      char buf[64];
      snprintf(buf, sizeof buf, " [%+.1f, %+.1f]", s.impact.low * 100, s.impact.high * 100);
      impact += buf;
    }
    std::string at[4];
    const double xs[4] = {0.10, 0.25, 0.50, 1.00};
    for (int k = 0; k < 4; k++) {
      double y;
      at[k] = analysis::interpolate(curve, xs[k], &y) ? percent(y) : "-";
    }
    std::string flags;
    auto flag = [&flags](const std::string& f) { flags += (flags.empty() ? "" : " ") + f; };
    if (s.significant) {
      flag("significant");
    }
    if (s.contention) {
      flag("contention");
    }
    if (s.phase_corrected && s.phase_factor < 0.95) {
      char buf[32];
      snprintf(buf, sizeof buf, "phase x%.2f", s.phase_factor);
      flag(buf);
    }
    appendf(out, "  %3zu  %-28s %-26s %7s %7s %7s %7s %5zu  %s\n", i - first + 1,
            names.at(s.line).c_str(), impact.c_str(), at[0].c_str(), at[1].c_str(), at[2].c_str(),
            at[3].c_str(), s.experiments, flags.c_str());
  }
}

void scalability_table(std::string* out, const analysis::Report& r) {
  if (r.scalability.empty()) {
    return;
  }
  int conf = static_cast<int>(std::lround(r.options.confidence * 100));
  std::string last;
  for (const analysis::ScalabilityRow& row : r.scalability) {
    std::string title = "\"" + row.point + "\"";
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
    std::string latency = row.kind == PointKind::kLatency ? duration(row.latency_ns.value) : "-";
    appendf(out, "  %-16s %8s %-30s %9s %-12s %5zu\n", row.level.label().c_str(), achieved,
            tput.c_str(), rel, latency.c_str(), row.experiments);
  }
}

}  // namespace

std::string render_text(const RenderContext& ctx) {
  const analysis::Report& r = ctx.report;
  std::string out;
  appendf(&out, "coz report: %zu run%s, %zu experiment%s, %zu line%s tested", r.runs,
          r.runs == 1 ? "" : "s", r.experiments, r.experiments == 1 ? "" : "s", r.lines_tested,
          r.lines_tested == 1 ? "" : "s");
  if (r.dropped_few_speedups > 0) {
    appendf(&out, "; %zu with fewer than %zu speedups left out", r.dropped_few_speedups,
            r.options.min_speedups);
  }
  if (r.dropped_no_baseline > 0) {
    appendf(&out, "; %zu without a 0%% baseline left out", r.dropped_no_baseline);
  }
  out += "\n";
  for (const std::string& w : ctx.data.warnings()) {
    appendf(&out, "warning: %s\n", w.c_str());
  }
  std::vector<size_t> ranks = ranks_in_groups(r);
  std::unordered_map<std::string, std::string> names = display_lines(r);
  for (size_t first = 0; first < r.series.size();) {
    size_t end = first + 1;
    while (end < r.series.size() && ranks[end] != 1) {
      end++;
    }
    series_table(&out, ctx, names, first, end);
    first = end;
  }
  scalability_table(&out, r);
  if (!r.series.empty()) {
    int conf = static_cast<int>(std::lround(r.options.confidence * 100));
    appendf(&out,
            "\nimpact: mean program speedup over the measured line speedups (area under the "
            "curve); @N%%: "
            "predicted\nprogram speedup if the line ran N%% faster; %s%d%% intervals by bootstrap "
            "over experiments; "
            "significant /\ncontention: the line's speedup changes the program's (permutation test "
            "of the slope, "
            "%.0f%% false\ndiscovery rate, Benjamini-Hochberg), for the better / the worse; phase "
            "xF: scaled by "
            "the share of\nthe run the line was active in (eq. 5.8)\n",
            r.options.phase_correction ? "" : "not phase-corrected; ", conf, r.options.fdr * 100);
  }
  return out;
}

}  // namespace coz::output
