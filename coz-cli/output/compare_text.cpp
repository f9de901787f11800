// `coz compare`'s result as text and JSON (see compare_text.h).
#include "output/compare_text.h"

#include <cmath>
#include <cstdio>

#include "output/json_writer.h"
#include "output/terminal_text.h"

namespace coz::output {
namespace {

using analysis::MetricComparison;
using analysis::Verdict;

std::string number_text(const char* pattern, double value) {
  char buf[64];
  snprintf(buf, sizeof buf, pattern, value);
  return buf;
}

std::string signed_percent(double fraction) {
  return number_text("%+.1f%%", fraction * 100);
}

std::string value_of(const MetricComparison& m, double v) {
  if (m.latency) {
    return v >= 1      ? number_text("%.3g s", v)
           : v >= 1e-3 ? number_text("%.3g ms", v * 1e3)
                       : number_text("%.3g us", v * 1e6);
  }
  if (m.wall_time) {
    return v >= 10     ? number_text("%.2f s", v)
           : v >= 0.01 ? number_text("%.3f s", v)
                       : number_text("%.3g s", v);
  }
  return v >= 100 ? number_text("%.0f/s", v) : number_text("%.3g/s", v);
}

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kNoDifference:
      return "no difference";
    case Verdict::kTooFew:
      return "too few layouts to tell";
  }
  return "";
}

std::string display_name(const MetricComparison& m) {
  return m.wall_time ? "wall time" : "'" + m.name + "'" + (m.latency ? " latency" : "");
}

std::string p_text(double p) {
  return p < 0.001 ? "p < 0.001" : number_text("p = %.3f", p);
}

std::string spread_text(const MetricComparison& m) {
  if (m.layout_spread >= 0) {
    return "between layouts " + number_text("±%.1f%%", m.layout_spread * 100) + ", run to run " +
           number_text("±%.1f%%", m.run_spread * 100);
  }
  return m.total_spread >= 0 ? "between runs " + number_text("±%.1f%%", m.total_spread * 100) : "";
}

}  // namespace

std::string compare_text(const CompareSummary& s, const analysis::Comparison& c,
                         const PredictionCheck& check) {
  std::string out;
  out += "old: " + s.old_command + "\nnew: " + s.new_command + "\n";
  out += std::to_string(c.runs) + " runs: " + std::to_string(s.layouts) +
         (s.fixed_layout ? " rounds at one fixed layout" : " layouts") + ", " +
         std::to_string(s.repeats) + (s.repeats == 1 ? " run" : " runs") +
         " of each program at each, in random order (" + number_text("%.1f s", s.seconds) + "); " +
         number_text("%g%%", s.confidence * 100) + " intervals; --seed " + std::to_string(s.seed) +
         " repeats it\n\n";
  char row[512];
  snprintf(row, sizeof row, "  %-24s %12s %12s   %s\n", "measure", "old", "new",
           "speedup (1 - new time / old time)");
  out += row;
  for (const MetricComparison& m : c.metrics) {
    std::string change = signed_percent(m.speedup);
    if (m.has_interval) {
      change += " [" + signed_percent(m.low) + ", " + signed_percent(m.high) + "]";
    }
    change += std::string(" ") + verdict_word(m.verdict) + number_text(" (%.3gx", m.ratio);
    change += m.has_interval ? ", " + p_text(m.p_value) + ")" : ")";
    std::string name = display_name(m);
    snprintf(row, sizeof row, "  %-24s %12s %12s   %s\n", name.c_str(),
             value_of(m, m.old_value).c_str(), value_of(m, m.new_value).c_str(), change.c_str());
    out += row;
  }
  out += "\n";
  for (const MetricComparison& m : c.metrics) {
    std::string spread = spread_text(m);
    std::string name = display_name(m);
    if (!spread.empty()) {
      out += "  " + name + ": " + spread + "\n";
    }
    if (m.layouts_needed > 0) {
      out += "  " + name + ": the interval is wider than ±" +
             number_text("%g%%", s.precision * 100) + "; about " +
             std::to_string(m.layouts_needed) +
             " layouts in all would narrow it to that (--layouts, or --until-confident)\n";
    }
  }
  if (!s.address_space_fixed && !s.fixed_layout) {
    out +=
        "  address-space randomisation could not be turned off here (personality refused): "
        "runs at one layout differ by it too, so the spreads are not split\n";
  }
  for (const std::string& why : c.skipped) {
    out += "  not compared: " + why + "\n";
  }
  if (check.asked) {
    out += "\nprediction for " + check.line + ":\n";
    if (!check.problem.empty()) {
      out += "  " + check.problem + "\n";
    } else {
      out += "  the line itself is " + signed_percent(check.line_speedup) + " [" +
             signed_percent(check.line_low) + ", " + signed_percent(check.line_high) +
             "] faster by its samples (" + number_text("%.3g", check.old_samples) + " against " +
             number_text("%.3g", check.new_samples) + " samples per visit of '" + check.point +
             "')\n";
      out += "  predicted at that line speedup (over its interval too): " +
             signed_percent(check.prediction) + " [" + signed_percent(check.p_low) + ", " +
             signed_percent(check.p_high) + "]\n";
      if (!check.note.empty()) {
        out += "  (" + check.note + ")\n";
      }
      out += "  achieved: " + signed_percent(check.achievement) + " [" +
             signed_percent(check.a_low) + ", " + signed_percent(check.a_high) + "]\n";
      out += std::string("  ") +
             (check.consistent ? "consistent: the achieved speedup is the one predicted, within "
                                 "the two intervals"
                               : "not consistent: the achieved speedup differs from the "
                                 "prediction by more than the two intervals allow") +
             "\n";
    }
  }
  return terminal_safe_lines(out);
}

std::string compare_json(const CompareSummary& s, const analysis::Comparison& c,
                         const PredictionCheck& check,
                         const std::vector<analysis::ComparedRun>& runs) {
  JsonWriter j;
  j.begin_object();
  j.value("old", s.old_command).value("new", s.new_command);
  j.value("runs", c.runs).value("layouts", s.layouts).value("repeats", s.repeats);
  j.value("confidence", s.confidence).value("precision", s.precision);
  j.value("fixed_layout", s.fixed_layout).value("address_space_fixed", s.address_space_fixed);
  j.value("seconds", s.seconds).value("seed", std::to_string(s.seed));
  j.begin_array("measures");
  for (const MetricComparison& m : c.metrics) {
    j.begin_object();
    j.value("name", m.name).value("wall_time", m.wall_time).value("latency", m.latency);
    j.value("old", m.old_value).value("new", m.new_value).value("speedup", m.speedup);
    j.value("ratio", m.ratio);
    if (m.has_interval) {
      j.value("low", m.low).value("high", m.high).value("p_value", m.p_value);
    } else {
      j.null("low").null("high").null("p_value");
    }
    j.value("verdict", verdict_word(m.verdict)).value("layouts", m.layouts);
    j.value("total_spread", m.total_spread);
    if (m.layout_spread >= 0) {
      j.value("layout_spread", m.layout_spread).value("run_spread", m.run_spread);
    } else {
      j.null("layout_spread").null("run_spread");
    }
    j.value("layouts_needed", m.layouts_needed);
    j.end_object();
  }
  j.end_array();
  j.begin_array("not_compared");
  for (const std::string& why : c.skipped) {
    j.value("", why);
  }
  j.end_array();
  j.begin_array("run_values");
  for (const analysis::ComparedRun& r : runs) {
    j.begin_object();
    j.value("program", r.program == 0 ? "old" : "new").value("layout", r.layout);
    j.value("seconds", r.seconds);
    j.begin_object("rates");
    for (const auto& [name, visits] : r.visits) {
      j.value(name, r.seconds > 0 ? visits / r.seconds : 0.0);
    }
    j.end_object();
    j.begin_object("latencies");  // mean seconds, by latency point
    for (const auto& [name, flying] : r.in_flight_ns) {
      double departures = 0;
      for (const auto& [n, v] : r.visits) {
        departures += n == name ? v : 0;
      }
      if (departures > 0) {
        j.value(name, flying / departures / 1e9);
      }
    }
    j.end_object();
    j.end_object();
  }
  j.end_array();
  if (check.asked) {
    j.begin_object("prediction");
    j.value("line", check.line).value("point", check.point);
    if (!check.problem.empty()) {
      j.value("problem", check.problem);
    } else {
      j.value("line_speedup", check.line_speedup).value("line_low", check.line_low);
      j.value("line_high", check.line_high);
      j.value("predicted", check.prediction).value("predicted_low", check.p_low);
      j.value("predicted_high", check.p_high);
      j.value("achieved", check.achievement).value("achieved_low", check.a_low);
      j.value("achieved_high", check.a_high).value("consistent", check.consistent);
      if (!check.note.empty()) {
        j.value("note", check.note);
      }
      j.begin_array("curve");
      for (const PredictionCheck::Point& p : check.curve) {
        j.begin_object().value("x", p.x).value("y", p.y).value("low", p.low).value("high", p.high);
        j.end_object();
      }
      j.end_array();
      j.begin_array("fit");
      for (const PredictionCheck::Point& p : check.fit) {
        j.begin_object().value("x", p.x).value("y", p.y).end_object();
      }
      j.end_array();
    }
    j.end_object();
  }
  j.end_object();
  return j.text();
}

}  // namespace coz::output
