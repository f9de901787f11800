// A run across programs' records (see run_records.h).
#include "coordinator/run_records.h"

#include <algorithm>
#include <map>

#include "record/profile_format.h"
#include "record/vocabulary.h"

namespace coz::coordinator {
namespace {

// A forwarded line as a record, by the profile format's own parser (record/profile_format.h);
// a line it refuses is no record (kUnknown). Written back with format_record, a record is the
// member's own bytes plus what is changed.
Record parse(std::string_view text) {
  Record r;
  std::string why;
  if (!parse_record(text, &r, &why)) {
    r = Record();
  }
  return r;
}

uint64_t number(const Record& r, std::string_view key) {
  return r.u64(key, 0);
}

void set(Record* r, std::string_view key, std::string v) {
  for (RecordField& f : r->fields) {
    if (f.key == key) {
      f.value = std::move(v);
      return;
    }
  }
  r->fields.push_back({std::string(key), std::move(v)});
}

// A host name as a field value: no tabs, newlines or other control characters.
std::string clean(const std::string& host) {
  std::string out;
  for (char c : host) {
    if (static_cast<unsigned char>(c) > ' ' && c != '=') {
      out += c;
    }
  }
  return out.empty() ? "?" : out;
}

}  // namespace

LineUse use_of_line(std::string_view text, const std::string& host, std::string* out) {
  Record line = parse(text);
  if (line.kind == RecordKind::kStartup || line.kind == RecordKind::kProcess) {
    // A member's root begins no run of its own: it is one of the coordinator's run's processes.
    if (line.kind == RecordKind::kStartup) {
      line.type = std::string(vocab::kProcess);
      std::vector<RecordField> kept;
      for (RecordField& f : line.fields) {
        if (f.key != vocab::key::kFormat && f.key != vocab::key::kSamplingPeriod &&
            f.key != vocab::key::kParent) {
          kept.push_back(std::move(f));
        }
      }
      line.fields = std::move(kept);
    }
    set(&line, vocab::key::kHost, clean(host));
  } else if (line.kind == RecordKind::kSamples) {
    set(&line, vocab::key::kHost, clean(host));
  } else if (line.kind == RecordKind::kExperiment) {
    *out = std::string(text);
    return LineUse::kExperiment;
  } else if (line.kind == RecordKind::kThroughputPoint || line.kind == RecordKind::kLatencyPoint ||
             line.kind == RecordKind::kArrivalPoint) {
    *out = std::string(text);
    return LineUse::kPoint;
  } else if (line.kind != RecordKind::kWarning) {
    return LineUse::kDrop;  // runtime, shutdown: the coordinator's own; anything else: not ours
  }
  *out = format_record(line);
  return LineUse::kWrite;
}

std::string merge_experiment(const RunExperiment& run, const std::vector<MemberExperiment>& members,
                             MergedVisits* visits) {
  // Points by type and name, summed field by field (every count in a point record adds up).
  std::map<std::pair<std::string, std::string>, Record> points;
  std::vector<std::pair<std::string, std::string>> order;
  uint64_t selected_samples = 0, delay_size = 0;
  uint64_t most_visits = 0;
  const Record* timing = nullptr;
  std::vector<Record> records;
  records.reserve(members.size());
  *visits = MergedVisits{};
  // A point's visits as the local runner counts them (ExperimentResult::visits): throughput
  // visits, latency arrivals and departures; an arrival-only record is no progress point's.
  auto visits_of = [](const Record& p) {
    return p.kind == RecordKind::kThroughputPoint ? number(p, vocab::key::kDelta)
           : p.kind == RecordKind::kLatencyPoint
               ? number(p, vocab::key::kArrivals) + number(p, vocab::key::kDepartures)
               : 0;
  };
  for (const MemberExperiment& m : members) {
    records.push_back(parse(m.experiment));
    const Record& e = records.back();
    selected_samples += number(e, vocab::key::kSelectedSamples);
    delay_size = std::max(delay_size, number(e, vocab::key::kDelaySize));
    uint64_t seen = 0;
    for (const std::string& text : m.points) {
      Record p = parse(text);
      seen += visits_of(p);
      auto key = std::make_pair(p.type, p.text(vocab::key::kName));
      auto it = points.find(key);
      if (it == points.end()) {
        order.push_back(key);
        points.emplace(key, std::move(p));
        continue;
      }
      for (RecordField& f : it->second.fields) {
        if (f.key != vocab::key::kName) {
          f.value = std::to_string(number(it->second, f.key) + number(p, f.key));
        }
      }
    }
    visits->total += seen;
    if (seen > most_visits || (!timing && seen == most_visits && seen > 0)) {
      most_visits = seen;
      timing = &records.back();
    }
  }
  visits->fewest = UINT64_MAX;
  for (const auto& key : order) {  // every progress point some member has visited at all
    const Record& p = points.at(key);
    if (p.kind == RecordKind::kThroughputPoint || p.kind == RecordKind::kLatencyPoint) {
      visits->fewest = std::min(visits->fewest, visits_of(p));
    }
  }
  if (visits->fewest == UINT64_MAX) {
    visits->fewest = 0;
  }
  uint64_t elapsed = timing ? number(*timing, vocab::key::kElapsed) : run.elapsed_ns;
  // The delay total is the run's: the highest any member ended with. Each member's own record
  // has every raise it made itself, where another member's still lacks the raises of its last
  // relay interval (up to 10 ms and a round trip: a tenth of a short experiment).
  uint64_t inserted = run.inserted_ns;
  for (const Record& e : records) {
    inserted = std::max(inserted, number(e, vocab::key::kInserted));
  }
  inserted = std::min(inserted, elapsed);
  // What the threads that made the timing member's progress still owed at its end never
  // lengthened its time (progress_delays.h): it is not taken off.
  uint64_t owed = timing ? std::min(number(*timing, vocab::key::kOwed), inserted) : 0;
  char speedup[16];
  snprintf(speedup, sizeof speedup, "%.2f", run.speedup / 100.0);
  Record e;
  e.type = std::string(vocab::kExperiment);
  e.fields = {
      {std::string(vocab::key::kSelected), run.line},
      {std::string(vocab::key::kSpeedup), speedup},
      {std::string(vocab::key::kDuration), std::to_string(elapsed - (inserted - owed))},
      {std::string(vocab::key::kSelectedSamples), std::to_string(selected_samples)},
      {std::string(vocab::key::kElapsed), std::to_string(elapsed)},
      {std::string(vocab::key::kDelays), std::to_string(delay_size ? inserted / delay_size : 0)},
      {std::string(vocab::key::kDelaySize), std::to_string(delay_size)},
      {std::string(vocab::key::kInserted), std::to_string(inserted)},
      {std::string(vocab::key::kStart), std::to_string(run.start_ns)}};
  if (owed != 0) {
    e.fields.push_back({std::string(vocab::key::kOwed), std::to_string(owed)});
  }
  if (run.run_id != 0) {
    e.fields.push_back({std::string(vocab::key::kRun), std::to_string(run.run_id)});
  }
  std::string out = format_record(e) + "\n";
  for (const auto& key : order) {
    out += format_record(points.at(key)) + "\n";
  }
  return out;
}

std::string coordinator_startup(uint64_t wall_ns, uint64_t pid, const std::string& host) {
  RecordBuilder b;
  b.begin(vocab::kStartup)
      .field(vocab::key::kTime, wall_ns)
      .field(vocab::key::kFormat, static_cast<uint64_t>(kProfileFormatVersion))
      .field(vocab::key::kPid, pid)
      .field(vocab::key::kProgram, "coz-coordinate@" + host);
  return b.text() + "\n";
}

std::string coordinator_runtime(uint64_t ran_ns) {
  RecordBuilder b;
  b.begin(vocab::kRuntime).field(vocab::key::kTime, ran_ns);
  return b.text() + "\n";
}

}  // namespace coz::coordinator
