// A run across programs' records (see run_records.h).
#include "coordinator/run_records.h"

#include <algorithm>
#include <map>

#include "record/vocabulary.h"

namespace coz::coordinator {
namespace {

// A record as its fields were written: values kept escaped, so a line passed on is the member's
// own bytes plus a field (record/profile_format.h's parse_record unescapes them, and writing those
// back would need its writer's escaping again).
struct Line {
  std::string type;
  std::vector<std::pair<std::string, std::string>> fields;
};

Line split(std::string_view text) {
  Line line;
  size_t at = 0;
  bool first = true;
  while (at <= text.size()) {
    size_t tab = text.find('\t', at);
    std::string_view part = text.substr(at, tab == std::string_view::npos ? tab : tab - at);
    if (first) {
      line.type = std::string(part);
      first = false;
    } else if (size_t eq = part.find('='); eq != std::string_view::npos) {
      line.fields.emplace_back(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
    }
    if (tab == std::string_view::npos) {
      break;
    }
    at = tab + 1;
  }
  return line;
}

std::string join(const Line& line) {
  std::string out = line.type;
  for (const auto& [k, v] : line.fields) {
    out += '\t' + k + '=' + v;
  }
  return out;
}

std::string value(const Line& line, std::string_view key) {
  for (const auto& [k, v] : line.fields) {
    if (k == key) {
      return v;
    }
  }
  return "";
}

uint64_t number(const Line& line, std::string_view key) {
  std::string v = value(line, key);
  return v.empty() || v.find_first_not_of("0123456789") != std::string::npos
             ? 0
             : std::strtoull(v.c_str(), nullptr, 10);
}

void set(Line* line, std::string_view key, std::string v) {
  for (auto& [k, old] : line->fields) {
    if (k == key) {
      old = std::move(v);
      return;
    }
  }
  line->fields.emplace_back(std::string(key), std::move(v));
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
  Line line = split(text);
  if (line.type == vocab::kStartup || line.type == vocab::kProcess) {
    // A member's root begins no run of its own: it is one of the coordinator's run's processes.
    if (line.type == vocab::kStartup) {
      line.type = std::string(vocab::kProcess);
      std::vector<std::pair<std::string, std::string>> kept;
      for (auto& f : line.fields) {
        if (f.first != vocab::key::kFormat && f.first != vocab::key::kSamplingPeriod &&
            f.first != vocab::key::kParent) {
          kept.push_back(std::move(f));
        }
      }
      line.fields = std::move(kept);
    }
    set(&line, vocab::key::kHost, clean(host));
  } else if (line.type == vocab::kSamples) {
    set(&line, vocab::key::kHost, clean(host));
  } else if (line.type == vocab::kExperiment) {
    *out = std::string(text);
    return LineUse::kExperiment;
  } else if (line.type == vocab::kThroughputPoint || line.type == vocab::kLatencyPoint ||
             line.type == vocab::kArrivalPoint) {
    *out = std::string(text);
    return LineUse::kPoint;
  } else if (line.type != vocab::kWarning) {
    return LineUse::kDrop;  // runtime, shutdown: the coordinator's own; anything else: not ours
  }
  *out = join(line);
  return LineUse::kWrite;
}

std::string merge_experiment(const RunExperiment& run, const std::vector<MemberExperiment>& members,
                             uint64_t* visits) {
  // Points by type and name, summed field by field (every count in a point record adds up).
  std::map<std::pair<std::string, std::string>, Line> points;
  std::vector<std::pair<std::string, std::string>> order;
  uint64_t selected_samples = 0, delay_size = 0;
  uint64_t most_visits = 0;
  const Line* timing = nullptr;
  std::vector<Line> records;
  records.reserve(members.size());
  *visits = 0;
  for (const MemberExperiment& m : members) {
    records.push_back(split(m.experiment));
    const Line& e = records.back();
    selected_samples += number(e, vocab::key::kSelectedSamples);
    delay_size = std::max(delay_size, number(e, vocab::key::kDelaySize));
    uint64_t seen = 0;
    for (const std::string& text : m.points) {
      Line p = split(text);
      uint64_t n = p.type == vocab::kThroughputPoint ? number(p, vocab::key::kDelta)
                   : p.type == vocab::kLatencyPoint  ? number(p, vocab::key::kArrivals)
                                                     : 0;
      seen += n;
      auto key = std::make_pair(p.type, value(p, vocab::key::kName));
      auto it = points.find(key);
      if (it == points.end()) {
        order.push_back(key);
        points.emplace(key, std::move(p));
        continue;
      }
      for (auto& [k, v] : it->second.fields) {
        if (k != vocab::key::kName) {
          v = std::to_string(number(it->second, k) + number(p, k));
        }
      }
    }
    *visits += seen;
    if (seen > most_visits || (!timing && seen == most_visits && seen > 0)) {
      most_visits = seen;
      timing = &records.back();
    }
  }
  uint64_t elapsed = timing ? number(*timing, vocab::key::kElapsed) : run.elapsed_ns;
  // The delay total is the run's: the highest any member ended with. Each member's own record
  // has every raise it made itself, where another member's still lacks the raises of its last
  // relay interval (up to 10 ms and a round trip: a tenth of a short experiment).
  uint64_t inserted = run.inserted_ns;
  for (const Line& e : records) {
    inserted = std::max(inserted, number(e, vocab::key::kInserted));
  }
  inserted = std::min(inserted, elapsed);
  // What the threads that made the timing member's progress still owed at its end never
  // lengthened its time (progress_delays.h): it is not taken off.
  uint64_t owed = timing ? std::min(number(*timing, vocab::key::kOwed), inserted) : 0;
  char speedup[16];
  snprintf(speedup, sizeof speedup, "%.2f", run.speedup / 100.0);
  Line e;
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
    e.fields.emplace_back(std::string(vocab::key::kOwed), std::to_string(owed));
  }
  if (run.run_id != 0) {
    e.fields.emplace_back(std::string(vocab::key::kRun), std::to_string(run.run_id));
  }
  std::string out = join(e) + "\n";
  for (const auto& key : order) {
    out += join(points.at(key)) + "\n";
  }
  return out;
}

std::string coordinator_startup(uint64_t wall_ns, uint64_t pid, const std::string& host) {
  return std::string(vocab::kStartup) + "\t" + std::string(vocab::key::kTime) + "=" +
         std::to_string(wall_ns) + "\t" + std::string(vocab::key::kFormat) + "=1\t" +
         std::string(vocab::key::kPid) + "=" + std::to_string(pid) + "\t" +
         std::string(vocab::key::kProgram) + "=coz-coordinate@" + host + "\n";
}

std::string coordinator_runtime(uint64_t ran_ns) {
  return std::string(vocab::kRuntime) + "\t" + std::string(vocab::key::kTime) + "=" +
         std::to_string(ran_ns) + "\n";
}

}  // namespace coz::coordinator
