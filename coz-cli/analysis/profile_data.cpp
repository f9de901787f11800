// Turns profile records into experiments, runs and sample counts (see profile_data.h).
#include "analysis/profile_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace coz::analysis {
namespace {

std::string format_number(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Coz 0.2 logs END-before-BEGIN as an unsigned wrap-around (18446744073709551615-style).
constexpr double kWrappedCount = 9.2e18;

}  // namespace

bool LoadLevel::operator<(const LoadLevel& o) const {
  if (target != o.target) {
    return target < o.target;
  }
  return arrival_speedup_ns < o.arrival_speedup_ns;
}

bool LoadLevel::operator==(const LoadLevel& o) const {
  return target == o.target && arrival_speedup_ns == o.arrival_speedup_ns;
}

std::string LoadLevel::label() const {
  if (arrival_speedup_ns > 0) {
    double us = arrival_speedup_ns / 1000.0;
    return "+" + format_number(us) + "us/arrival";
  }
  return format_number(target) + "x";
}

Run& ProfileData::current_run(const std::string& file) {
  if (!run_open_ || runs_.empty() || runs_.back().file != file) {
    runs_.push_back(Run{file, "", false, 0, {}, 0});
    run_open_ = true;
  }
  return runs_.back();
}

bool ProfileData::read(const std::string& path, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "cannot read " + path + ": " + strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = path + " is a directory, not a profile";
    return false;
  }
  for (const InputFile& in : inputs_) {
    if (in.path == path) {
      warnings_.push_back(path + " was given twice; it is read once");
      return true;
    }
  }
  std::vector<Record> records;
  std::vector<ParseError> errors;
  if (!read_profile(path, &records, &errors)) {
    *error = "cannot read " + path + ": not readable (check its permissions)";
    return false;
  }
  add(path, records);
  std::vector<ParseError>& all = inputs_.back().errors;
  all.insert(all.end(), errors.begin(), errors.end());
  std::stable_sort(all.begin(), all.end(), [](const ParseError& a, const ParseError& b) { return a.line < b.line; });
  return true;
}

void ProfileData::add(const std::string& file, const std::vector<Record>& records) {
  inputs_.push_back(InputFile{file, records.size(), {}});
  run_open_ = false;
  InputFile& input = inputs_.back();
  Experiment* open = nullptr;  // the experiment later point records belong to
  bool skipping = false;       // the last experiment record was rejected: so are its points
  bool wrapped_warned = false;
  auto complain = [&](const Record& r, std::string message) {
    input.errors.push_back(ParseError{file, r.line, std::move(message)});
  };

  for (const Record& r : records) {
    switch (r.kind) {
      case RecordKind::kStartup:
        runs_.push_back(Run{file, r.text("program"), false, 0, {}, 0});
        run_open_ = true;
        open = nullptr;
        skipping = false;
        break;
      case RecordKind::kExperiment: {
        open = nullptr;
        skipping = true;  // its point records go with it unless it is valid
        if (!r.find("selected") || !r.find("speedup") || !r.find("duration")) {
          complain(r, "experiment record without selected, speedup and duration; skipped");
          break;
        }
        double speedup = r.real("speedup", -1);
        if (!(speedup >= 0 && speedup <= 1)) {
          complain(r, "experiment speedup is not a number from 0 to 1; skipped");
          break;
        }
        if (!(r.real("duration", -1) >= 0) || !(r.real("elapsed", 0) >= 0) ||
            !(r.real("selected-samples", 0) >= 0)) {
          complain(r, "experiment duration, elapsed or selected-samples is not a number of 0 or more; skipped");
          break;
        }
        skipping = false;
        Run& run = current_run(file);
        Experiment e;
        e.line = r.text("selected");
        e.speedup = speedup;
        e.duration_ns = r.real("duration");
        e.elapsed_ns = r.real("elapsed", e.duration_ns);
        e.selected_samples = r.real("selected-samples");
        e.level.target = r.real("load-target", 0) > 0 ? r.real("load-target") : 1;
        e.level.arrival_speedup_ns = r.real("arrival-speedup", 0);
        e.load_achieved = r.real("load", -1);
        e.run = runs_.size() - 1;
        run.experiments++;
        experiments_.push_back(std::move(e));
        open = &experiments_.back();
        break;
      }
      case RecordKind::kThroughputPoint:
      case RecordKind::kLatencyPoint: {
        if (!open) {
          if (!skipping) {
            complain(r, r.type + " record outside an experiment; skipped");
          }
          break;
        }
        bool counts_ok = true;
        for (const char* key : {"delta", "arrivals", "departures", "difference", "in-flight-ns"}) {
          counts_ok = counts_ok && (!r.find(key) || r.real(key, -1) >= 0);
        }
        if (!counts_ok) {
          complain(r, "a count in this " + r.type + " record is not a number of 0 or more; skipped");
          break;
        }
        PointCounts p;
        p.name = r.text("name");
        if (r.kind == RecordKind::kThroughputPoint) {
          p.visits = r.real("delta");
        } else {
          p.kind = PointKind::kLatency;
          p.visits = r.real("arrivals");
          p.departures = r.real("departures");
          double difference = r.real("difference");
          if (r.find("in-flight-ns")) {
            p.in_flight_ns = r.real("in-flight-ns");
          } else if (difference >= kWrappedCount) {
            if (!wrapped_warned) {
              warnings_.push_back(file + ": Coz recorded a negative number in flight (END before BEGIN); "
                                  "latency from those experiments is ignored");
              wrapped_warned = true;
            }
            break;
          } else {
            // Coz logs only the number in flight at the end: assume it held all experiment long.
            p.in_flight_ns = difference * open->duration_ns;
          }
        }
        open->points.push_back(std::move(p));
        break;
      }
      case RecordKind::kArrivalPoint:
        break;  // arrivals are summarised by the experiment's `load`
      case RecordKind::kRuntime: {
        Run& run = current_run(file);
        run.has_runtime = true;
        run.runtime_ns += r.real("time");
        open = nullptr;
        break;
      }
      case RecordKind::kSamples: {
        Run& run = current_run(file);
        run.samples[r.text("location")] += r.real("count");
        sample_records_++;
        open = nullptr;
        break;
      }
      case RecordKind::kWarning: {
        std::string w = r.text("message");
        bool seen = false;
        for (const std::string& x : warnings_) {
          seen = seen || x == w;
        }
        if (!seen) {
          warnings_.push_back(w);
        }
        break;
      }
      case RecordKind::kUnknown:
        if (r.type != "shutdown") {
          complain(r, "unknown record type '" + r.type + "'; skipped");
        }
        break;
    }
  }
}

}  // namespace coz::analysis
