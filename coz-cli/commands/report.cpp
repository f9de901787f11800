// `coz report` (see report.h).
#include "commands/report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "analysis/causal_profile.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_data.h"
#include "output/report_output.h"

namespace coz::cli {
namespace {

const char* const kUsage =
    "usage: coz report [options] [profile.coz...]\n"
    "\n"
    "Prints the causal profile: for each line, how much the program would speed up if the line\n"
    "ran faster, best lines first. Reads this project's profiles and Coz's (tab-separated or\n"
    "JSON lines); several files, and runs appended to one file, merge. Default: profile.coz.\n"
    "\n"
    "options:\n"
    "  --sort ORDER        impact (default), slope, max (largest speedup), name\n"
    "  --min-points N      leave out lines with fewer than N distinct speedups (default 5)\n"
    "  --point NAME        only this progress point\n"
    "  --load LEVEL        only this load level (as shown: 2x, or +750us/arrival)\n"
    "  --json              the versioned JSON document the viewer reads\n"
    "  --csv               one row per curve point\n"
    "  --uncorrected       no phase correction (eq. 5.8)\n"
    "  --confidence C      of every interval (default 0.95)\n"
    "  --bootstrap N       bootstrap replicates (default 1000; 0: no intervals)\n"
    "  --seed N            bootstrap random seed (default 1)\n"
    "  --fdr Q             false discovery rate for the significance flags (default 0.05)\n"
    "  -h, --help          show this help\n";

struct ReportArgs {
  std::vector<std::string> files;
  analysis::AnalysisOptions analysis;
  analysis::SortOrder sort = analysis::SortOrder::kImpact;
  std::string sort_name = "impact";
  std::string point;
  std::string load;
  enum class Format { kText, kJson, kCsv } format = Format::kText;
  bool help = false;
};

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

}  // namespace

OptionResult parse_shared_option(const std::vector<std::string>& args, size_t* i,
                                 analysis::AnalysisOptions* analysis, size_t* min_points,
                                 std::string* error) {
  const std::string& a = args[*i];
  if (a != "--min-points" && a != "--confidence" && a != "--bootstrap" && a != "--seed" &&
      a != "--fdr") {
    return OptionResult::kNotHandled;
  }
  std::string v = *i + 1 < args.size() ? args[++*i] : std::string();
  double d;
  if (a == "--min-points") {
    if (!parse_number(v, 2, 21, &d) || d != static_cast<size_t>(d)) {
      *error = "--min-points takes a whole number from 2 to 21 (there are 21 speedups, 0% to 100%)";
      return OptionResult::kBad;
    }
    *min_points = static_cast<size_t>(d);
  } else if (a == "--confidence") {
    if (!parse_number(v, 0.5, 0.999, &d)) {
      *error = "--confidence takes a number from 0.5 to 0.999, e.g. 0.95";
      return OptionResult::kBad;
    }
    analysis->confidence = d;
  } else if (a == "--bootstrap") {
    if (!parse_number(v, 0, 100000, &d) || d != static_cast<size_t>(d)) {
      *error = "--bootstrap takes a whole number of replicates from 0 to 100000";
      return OptionResult::kBad;
    }
    analysis->bootstrap = static_cast<size_t>(d);
  } else if (a == "--seed") {
    char* end = nullptr;
    errno = 0;
    if (v.empty() || v[0] == '-' ||
        (analysis->seed = strtoull(v.c_str(), &end, 10), *end != '\0' || errno != 0)) {
      *error = "--seed takes a whole number from 0 to 18446744073709551615";
      return OptionResult::kBad;
    }
  } else {
    if (!parse_number(v, 0.0001, 0.5, &d)) {
      *error = "--fdr takes a rate from 0.0001 to 0.5, e.g. 0.05";
      return OptionResult::kBad;
    }
    analysis->fdr = d;
  }
  return OptionResult::kHandled;
}

namespace {

bool parse_args(const std::vector<std::string>& args, ReportArgs* out, std::string* error) {
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    auto next = [&](std::string* v) {
      if (i + 1 >= args.size()) {
        *error = a + " needs a value";
        return false;
      }
      *v = args[++i];
      return true;
    };
    std::string v;
    OptionResult shared =
        parse_shared_option(args, &i, &out->analysis, &out->analysis.min_speedups, error);
    if (shared == OptionResult::kBad) {
      return false;
    }
    if (shared == OptionResult::kHandled) {
      continue;
    }
    if (a == "-h" || a == "--help") {
      out->help = true;
    } else if (a == "--json") {
      out->format = ReportArgs::Format::kJson;
    } else if (a == "--csv") {
      out->format = ReportArgs::Format::kCsv;
    } else if (a == "--uncorrected") {
      out->analysis.phase_correction = false;
    } else if (a == "--sort") {
      if (!next(&v)) {
        return false;
      }
      if (v == "impact") {
        out->sort = analysis::SortOrder::kImpact;
      } else if (v == "slope") {
        out->sort = analysis::SortOrder::kSlope;
      } else if (v == "max" || v == "max-speedup") {
        out->sort = analysis::SortOrder::kMaxSpeedup, v = "max";
      } else if (v == "name" || v == "alphabetical") {
        out->sort = analysis::SortOrder::kName, v = "name";
      } else {
        *error = "--sort takes impact, slope, max or name, not '" + v + "'";
        return false;
      }
      out->sort_name = v;
    } else if (a == "--point") {
      if (!next(&out->point)) {
        return false;
      }
    } else if (a == "--load") {
      if (!next(&out->load)) {
        return false;
      }
    } else if (a.size() > 1 && a[0] == '-') {
      *error = "unknown option '" + a + "'; see coz report --help";
      return false;
    } else {
      out->files.push_back(a);
    }
  }
  if (out->files.empty()) {
    out->files.push_back("profile.coz");
  }
  return true;
}

bool level_matches(const analysis::LoadLevel& level, const std::string& wanted) {
  if (level.label() == wanted) {
    return true;
  }
  double d;
  return level.arrival_speedup_ns == 0 && parse_number(wanted, 0, 1e9, &d) && d == level.target;
}

// Keeps the series the user asked for, ranked and grouped by (point, level).
bool select(const ReportArgs& args, analysis::Report* report, std::string* error) {
  if (!args.point.empty()) {
    bool known = false;
    std::string names;
    for (const analysis::ProgressPointInfo& p : report->points) {
      known = known || p.name == args.point;
      names += (names.empty() ? "" : ", ") + ("\"" + p.name + "\"");
    }
    if (!known) {
      *error = "no progress point \"" + args.point + "\" in the profile; it has " +
               (names.empty() ? std::string("none") : names);
      return false;
    }
  }
  if (!args.load.empty()) {
    bool known = false;
    std::string labels;
    for (const analysis::LoadLevel& l : report->levels) {
      known = known || level_matches(l, args.load);
      labels += (labels.empty() ? "" : ", ") + l.label();
    }
    if (!known) {
      *error = "no load level " + args.load + " in the profile; it has " + labels;
      return false;
    }
  }
  std::vector<analysis::Series> kept;
  for (analysis::Series& s : report->series) {
    if ((args.point.empty() || s.point == args.point) &&
        (args.load.empty() || level_matches(s.level, args.load))) {
      kept.push_back(std::move(s));
    }
  }
  analysis::rank_in_groups(&kept, args.sort);
  report->series = std::move(kept);
  std::vector<analysis::ScalabilityRow> rows;
  for (analysis::ScalabilityRow& row : report->scalability) {
    if ((args.point.empty() || row.point == args.point) &&
        (args.load.empty() || level_matches(row.level, args.load))) {
      rows.push_back(std::move(row));
    }
  }
  report->scalability = std::move(rows);
  return true;
}

}  // namespace

bool read_profiles(const std::vector<std::string>& files, const char* who,
                   analysis::ProfileData* data) {
  std::string error;
  for (const std::string& f : files) {
    if (!data->read(f, &error)) {
      if (access(f.c_str(), F_OK) != 0 && errno == ENOENT) {
        fprintf(stderr, "%s: error: %s; write one with coz run -o %s --- PROGRAM\n", who,
                error.c_str(), f.c_str());
      } else {
        fprintf(stderr, "%s: error: %s\n", who, error.c_str());
      }
      return false;
    }
  }
  size_t shown = 0, total = 0;
  for (const analysis::InputFile& in : data->inputs()) {
    for (const ParseError& e : in.errors) {
      if (total++ < 10) {
        // The message may quote the profile: its control bytes are shown as '?', never sent to the
        // terminal.
        std::string message = e.message;
        for (char& c : message) {
          c = static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
        }
        fprintf(stderr, "%s: warning: %s:%zu: %s\n", who, e.file.c_str(), e.line, message.c_str());
        shown++;
      }
    }
    total += in.errors_left_out;
  }
  if (total > shown) {
    fprintf(stderr, "%s: warning: %zu more malformed lines skipped\n", who, total - shown);
  }
  return true;
}

int report_command(const std::vector<std::string>& args) {
  ReportArgs parsed;
  std::string error;
  if (!parse_args(args, &parsed, &error)) {
    fprintf(stderr, "coz report: error: %s\n", error.c_str());
    return 2;
  }
  if (parsed.help) {
    fputs(kUsage, stdout);
    return 0;
  }
  analysis::ProfileData data;
  if (!read_profiles(parsed.files, "coz report", &data)) {
    return 2;
  }

  analysis::Report report = analysis::analyse(data, parsed.analysis);
  if (!select(parsed, &report, &error)) {
    fprintf(stderr, "coz report: error: %s\n", error.c_str());
    return 2;
  }
  output::RenderContext ctx{report, data, parsed.sort_name};
  std::string text = parsed.format == ReportArgs::Format::kJson  ? output::render_json(ctx)
                     : parsed.format == ReportArgs::Format::kCsv ? output::render_csv(ctx)
                                                                 : output::render_text(ctx);
  bool scalability = !report.scalability.empty();
  if (parsed.format != ReportArgs::Format::kText || !report.series.empty() || scalability) {
    fputs(text.c_str(), stdout);
  }
  if (!report.diagnosis.code.empty()) {
    // A load sweep of 0% experiments has no causal profile but does have its scalability table.
    fprintf(stderr, "coz report: %s: %s\n", analysis::diagnosis_heading(report),
            report.diagnosis.message.c_str());
    return scalability ? 0 : 1;
  }
  if (report.series.empty()) {
    fprintf(stderr, "coz report: nothing to show for that progress point and load level\n");
    return 1;
  }
  return 0;
}

std::string run_summary(const std::string& profile, uint64_t offset, uint64_t run_id) {
  analysis::ProfileData data;
  std::string error;
  if (!data.read(profile, &error)) {
    return "coz: the profile " + profile + " could not be read back: " + error + "\n";
  }
  // Experiments this run wrote: in the part of the file appended since `offset`, those marked
  // with this coz's run id (other coz processes may append to the same file meanwhile).
  size_t this_run = 0;
  read_profile_records(
      profile,
      [&](Record&& r) {
        this_run += r.kind == RecordKind::kExperiment && r.u64(vocab::key::kRun) == run_id;
      },
      [](ParseError&&) {}, nullptr, offset);
  analysis::AnalysisOptions options;
  options.bootstrap = 0;  // counts only
  analysis::Report report = analysis::analyse(data, options);
  std::set<std::string> lines;
  for (const analysis::Series& s : report.series) {
    lines.insert(s.line);
  }
  char first[512];
  snprintf(first, sizeof first,
           "coz: profile written to %s: %zu experiment%s this run, %zu in all\n", profile.c_str(),
           this_run, this_run == 1 ? "" : "s", report.experiments);
  std::string second;
  bool sweep_only = report.diagnosis.code == "load-only" || report.diagnosis.code == "few-speedups";
  if (sweep_only && !report.scalability.empty()) {
    // A load sweep: its result is the scalability table, not a causal profile.
    second = "coz: throughput at " + std::to_string(report.levels.size()) +
             " load levels in the profile; see coz report " + profile + "\n";
  } else if (!report.diagnosis.code.empty()) {
    second = "coz: warning: " + report.diagnosis.message + "\n";
  } else {
    second = "coz: " + std::to_string(lines.size()) + " line" + (lines.size() == 1 ? "" : "s") +
             " with usable data; see coz report " + profile + "\n";
  }
  return first + second;
}

}  // namespace coz::cli
