// Turns profile records into experiments, runs and sample counts (see profile_data.h).
#include "analysis/profile_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/location.h"

namespace coz::analysis {
namespace {

std::string format_number(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

constexpr double kWrappedCount = 9.2e18;  // Coz 0.2's wrapped negative count, see add_record

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
    runs_.emplace_back().file = file;
    run_open_ = true;
  }
  return runs_.back();
}

bool ProfileData::read(const std::string& path, std::string* error,
                       const std::function<void(const Record&)>& also) {
  return read_input(
      path,
      [&](const auto& on_record, const auto& on_error, std::string* why) {
        if (!also) {
          return read_profile_records(path, on_record, on_error, why);
        }
        return read_profile_records(
            path,
            [&](Record&& r) {
              also(r);
              on_record(std::move(r));
            },
            on_error, why);
      },
      error);
}

bool ProfileData::read_text(const std::string& name, std::string_view text, std::string* error) {
  return read_input(
      name,
      [&](const auto& on_record, const auto& on_error, std::string* why) {
        return read_profile_text(name, text, on_record, on_error, why);
      },
      error);
}

bool ProfileData::read_input(const std::string& path, const RecordSource& read_records,
                             std::string* error) {
  for (const InputFile& in : inputs_) {
    if (in.path == path) {
      warnings_.push_back(path + " was given twice; it is read once");
      return true;
    }
  }
  begin_file(path);
  FileState state{path};
  bool ok = read_records(
      [&](Record&& r) {
        inputs_.back().records++;
        add_record(r, &state);
      },
      [&](ParseError&& e) { complain(e.line, std::move(e.message)); }, error);
  if (!ok && inputs_.back().records == 0) {
    inputs_.pop_back();  // nothing of it was read
  }
  return ok;
}

void ProfileData::add(const std::string& file, const std::vector<Record>& records) {
  begin_file(file);
  FileState state{file};
  inputs_.back().records = records.size();
  for (const Record& r : records) {
    add_record(r, &state);
  }
}

void ProfileData::begin_file(const std::string& file) {
  inputs_.push_back(InputFile{file, 0, {}, 0});
  run_open_ = false;
}

void ProfileData::complain(size_t line, std::string message) {
  InputFile& input = inputs_.back();
  if (input.errors.size() < kMaxListedErrors) {
    input.errors.push_back(ParseError{input.path, line, std::move(message)});
  } else {
    input.errors_left_out++;
  }
}

namespace {

// The number under `key` into `out`: `fallback` when absent or empty (JSON null); false when it is
// not a decimal number from 0 to `max`.
bool bounded(const Record& r, std::string_view key, double max, double fallback, double* out) {
  const std::string* v = r.find(key);
  if (!v || v->empty()) {
    *out = fallback;
    return true;
  }
  double d = r.real(key, -1);
  if (!(d >= 0 && d <= max)) {
    return false;
  }
  *out = d;
  return true;
}

// A visit count or a time, which analysis divides by: whole, so no division by a tiny fraction
// can overflow.
bool whole(const Record& r, std::string_view key, double max, double fallback, double* out) {
  if (!bounded(r, key, max, fallback, out)) {
    return false;
  }
  *out = std::round(*out);
  return true;
}

bool valid_selected(const Location& selected) {
  return selected.name == kNoLine || selected.is_file_line();
}

// The process id under `key`: 0 when absent or not a whole number from 1 to pid_t's largest.
uint64_t process_id(const Record& r, std::string_view key) {
  double pid;
  if (!bounded(r, key, 2147483647.0, 0, &pid) || pid != std::floor(pid)) {
    return 0;
  }
  return static_cast<uint64_t>(pid);
}

// The run's latest process with `pid` on `host` (a process that exec'd has a later entry), or
// nullptr.
Process* find_process(Run* run, uint64_t pid, const std::string& host) {
  for (auto it = run->processes.rbegin(); it != run->processes.rend(); ++it) {
    if (it->pid == pid && it->host == host) {
      return &*it;
    }
  }
  return nullptr;
}

}  // namespace

// Each record kind has its own step; an experiment's point records follow it (st->open).
void ProfileData::add_record(const Record& r, FileState* st) {
  switch (r.kind) {
    case RecordKind::kStartup:
      add_startup(r, st);
      break;
    case RecordKind::kExperiment:
      add_experiment(r, st);
      break;
    case RecordKind::kThroughputPoint:
    case RecordKind::kLatencyPoint:
      add_point(r, st);
      break;
    case RecordKind::kArrivalPoint:
      break;  // arrivals are summarised by the experiment's `load`
    case RecordKind::kRuntime:
      add_runtime(r, st);
      break;
    case RecordKind::kSamples:
      add_samples(r, st);
      break;
    case RecordKind::kWarning:
      add_warning(r.text(vocab::key::kMessage));
      break;
    case RecordKind::kProcess:
      add_process(r, st->file);  // no experiment's end: a child's records come between the root's
      break;
    case RecordKind::kShutdown:
      break;
    case RecordKind::kCounts:
      complain(r.line, "a record of coz compare's counts, not of a profile; skipped");
      break;
    case RecordKind::kUnknown:
      complain(r.line, "unknown record type '" + r.type + "'; skipped");
      break;
  }
}

// A run begins, with its root process.
void ProfileData::add_startup(const Record& r, FileState* st) {
  Run& run = runs_.emplace_back();
  run.file = st->file;
  run.program = r.text(vocab::key::kProgram);
  run.written_by_coz = !r.find(vocab::key::kFormat);  // ours always says its format
  run.off_cpu = r.text(vocab::key::kOffCpu);
  run.sampler = r.text(vocab::key::kSampler);
  Process& root = run.processes.emplace_back();
  root.pid = process_id(r, vocab::key::kPid);
  root.parent = process_id(r, vocab::key::kParent);
  root.program = run.program;
  root.root = true;
  run_open_ = true;
  st->open = 0;
  st->skipping = false;
}

// An experiment's fields, checked; the reason when one is missing or out of range.
std::optional<std::string> ProfileData::read_experiment(const Record& r, Experiment* e) {
  if (!r.find(vocab::key::kSelected) || !r.find(vocab::key::kSpeedup) ||
      !r.find(vocab::key::kDuration)) {
    return "experiment record without selected, speedup and duration; skipped";
  }
  e->line = parse_location(r.text(vocab::key::kSelected));
  if (!valid_selected(e->line)) {
    return "experiment selected line is not FILE:LINE with a line number from 1 to " +
           std::to_string(kMaxLineNumber) + "; skipped";
  }
  if (!bounded(r, vocab::key::kSpeedup, 1, -1, &e->speedup) || e->speedup < 0) {
    return "experiment speedup is not a number from 0 to 1; skipped";
  }
  if (!whole(r, vocab::key::kDuration, kMaxRecordNs, -1, &e->duration_ns) || e->duration_ns < 0 ||
      !whole(r, vocab::key::kElapsed, kMaxRecordNs, e->duration_ns, &e->elapsed_ns) ||
      !bounded(r, vocab::key::kSelectedSamples, kMaxRecordCount, 0, &e->selected_samples) ||
      !whole(r, vocab::key::kStart, kMaxRecordNs, -1, &e->start_ns) ||
      !whole(r, vocab::key::kOwed, kMaxRecordNs, 0, &e->owed_ns)) {
    return "experiment duration, elapsed, start, owed or selected-samples is not a number from 0 "
           "to 1e17; skipped";
  }
  if (!bounded(r, vocab::key::kLoadTarget, kMaxLoad, 0, &e->level.target) ||
      !bounded(r, vocab::key::kArrivalSpeedup, kMaxRecordNs, 0, &e->level.arrival_speedup_ns) ||
      !bounded(r, vocab::key::kLoad, kMaxLoad, -1, &e->load_achieved)) {
    return "experiment load-target, load or arrival-speedup is out of range; skipped";
  }
  if (!(e->level.target > 0)) {
    e->level.target = 1;
  }
  return std::nullopt;
}

void ProfileData::add_experiment(const Record& r, FileState* st) {
  st->open = 0;
  st->skipping = true;  // its point records go with it unless it is valid
  Experiment e;
  if (std::optional<std::string> why = read_experiment(r, &e)) {
    complain(r.line, std::move(*why));
    return;
  }
  st->skipping = false;
  Run& run = current_run(st->file);
  e.run = runs_.size() - 1;
  if (run.written_by_coz && !r.find(vocab::key::kElapsed)) {
    // Coz writes only `duration`, the real time less the delays inserted. Each selected-line
    // sample inserted speedup x its fixed 1 ms sampling period: add them back, or phase
    // correction (eq. 5.6) would take a line active all run long for one active 70% of it.
    e.elapsed_ns = std::min(kMaxRecordNs,
                            e.duration_ns + e.speedup * kCozSamplingPeriodNs * e.selected_samples);
  }
  if (e.start_ns < 0) {
    e.start_ns = run.next_start_ns;
  }
  run.next_start_ns = std::min(kMaxRecordNs, e.start_ns + e.elapsed_ns);
  run.experiments++;
  experiments_.push_back(std::move(e));
  st->open = experiments_.size();
}

// A progress point's counts in the open experiment.
void ProfileData::add_point(const Record& r, FileState* st) {
  if (st->open == 0) {
    if (!st->skipping) {
      complain(r.line, r.type + " record outside an experiment; skipped");
    }
    return;
  }
  Experiment& open = experiments_[st->open - 1];
  PointCounts p;
  p.name = r.text(vocab::key::kName);
  double difference = 0;
  bool wrapped = false;
  bool counts_ok = true;
  if (r.kind == RecordKind::kThroughputPoint) {
    counts_ok = whole(r, vocab::key::kDelta, kMaxRecordCount, 0, &p.visits);
  } else {
    p.kind = PointMetric::kLatency;
    double raw_difference = r.real(vocab::key::kDifference, 0);
    // Coz 0.2 logs END-before-BEGIN as an unsigned wrap-around (18446744073709551615-style).
    wrapped = !r.find(vocab::key::kInFlightNs) && raw_difference >= kWrappedCount &&
              raw_difference <= 1.9e19;
    counts_ok =
        whole(r, vocab::key::kArrivals, kMaxRecordCount, 0, &p.visits) &&
        bounded(r, vocab::key::kDepartures, kMaxRecordCount, 0, &p.departures) &&
        (wrapped || bounded(r, vocab::key::kDifference, kMaxRecordCount, 0, &difference)) &&
        bounded(r, vocab::key::kInFlightNs, kMaxRecordNs * kMaxRecordCount, 0, &p.in_flight_ns);
  }
  if (!counts_ok) {
    complain(r.line,
             "a count in this " + r.type + " record is not a number from 0 to 1e15; skipped");
    return;
  }
  if (wrapped) {
    if (!st->wrapped_warned) {
      warnings_.push_back(st->file +
                          ": Coz recorded a negative number in flight (END before BEGIN); "
                          "latency from those experiments is ignored");
      st->wrapped_warned = true;
    }
    return;
  }
  if (p.kind == PointMetric::kLatency && !r.find(vocab::key::kInFlightNs)) {
    // Coz logs only the number in flight at the end: assume it held all experiment long.
    p.in_flight_ns = difference * open.duration_ns;
  }
  open.points.push_back(std::move(p));
}

// The run's time (added up when several processes each write theirs) and the sampler's
// resolution.
void ProfileData::add_runtime(const Record& r, FileState* st) {
  double time;
  if (!whole(r, vocab::key::kTime, kMaxRecordNs, 0, &time)) {
    complain(r.line, "runtime time is not a number from 0 to 1e17; skipped");
    return;
  }
  Run& run = current_run(st->file);
  run.has_runtime = true;
  run.runtime_ns += time;
  double resolution = 0;
  if (r.find(vocab::key::kSamplerResolution) &&
      whole(r, vocab::key::kSamplerResolution, kMaxRecordNs, 0, &resolution)) {
    run.sampler_resolution_ns = resolution;
  }
  st->open = 0;
}

// A warning the profile carries, said once however many processes or runs wrote it.
void ProfileData::add_warning(std::string w) {
  if (warnings_.size() < kMaxListedErrors &&
      std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) {
    warnings_.push_back(std::move(w));
  }
}

// A child process the runtime followed: it joins the current run (it begins none of its own).
void ProfileData::add_process(const Record& r, const std::string& file) {
  uint64_t pid = process_id(r, vocab::key::kPid);
  if (pid == 0) {
    complain(r.line, "process record without a pid from 1 to 2147483647; skipped");
    return;
  }
  Run& run = current_run(file);
  const std::string host = r.text(vocab::key::kHost);
  std::string program = r.text(vocab::key::kProgram);
  if (!host.empty()) {
    program += "@" + host;  // a member of a run across hosts, named as the report shows it
  }
  uint64_t parent = process_id(r, vocab::key::kParent);
  // Known so far by its samples alone, or named twice: the same process. Another program under a
  // known pid: the process exec'd it, and what it samples from now on is the new program's.
  Process* known = find_process(&run, pid, host);
  if (known && (known->program.empty() || known->program == program)) {
    known->program = program;
    known->parent = known->parent ? known->parent : parent;
    return;
  }
  Process& p = run.processes.emplace_back();
  p.pid = pid;
  p.parent = parent;
  p.program = std::move(program);
  p.host = host;
}

// One process's samples of one line. Several processes each write theirs: they add up.
void ProfileData::add_samples(const Record& r, FileState* st) {
  double count, blocked;
  if (!bounded(r, vocab::key::kCount, kMaxRecordCount, 0, &count)) {
    complain(r.line, "samples count is not a number from 0 to 1e15; skipped");
    return;
  }
  if (!bounded(r, vocab::key::kBlocked, kMaxRecordCount, 0, &blocked)) {
    complain(r.line, "samples blocked is not a number from 0 to 1e15; skipped");
    return;
  }
  Run& run = current_run(st->file);
  const std::string location = r.text(vocab::key::kLocation);
  run.samples[location] += count;
  if (blocked > 0) {  // older profiles have no `blocked`: none
    run.blocked[location] += blocked;
  }
  // Without a pid (older profiles), the root's; with one no record named, a process of its own.
  uint64_t pid = process_id(r, vocab::key::kPid);
  const std::string host = r.text(vocab::key::kHost);
  Process* p = pid ? find_process(&run, pid, host) : nullptr;
  if (!p && pid == 0 && !run.processes.empty() && run.processes.front().root) {
    p = &run.processes.front();
  } else if (!p && pid != 0) {
    p = &run.processes.emplace_back();
    p->pid = pid;
    p->host = host;
  }
  if (p) {
    p->samples[location] += count;
    if (blocked > 0) {
      p->blocked[location] += blocked;
    }
  }
  sample_records_++;
  // The root's samples end its experiments; another process's may come between the root's
  // experiment blocks (each written whole), and end nothing.
  if (!p || p->root) {
    st->open = 0;
  }
}

}  // namespace coz::analysis
