// Profile records turned into typed experiments, runs and sample counts: the input of analysis.
// Reads this project's profiles, Coz 0.2's tab-separated ones and Coz's JSON-lines ones (the
// record module parses all three); several files and several runs in one file merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/location.h"
#include "record/profile_format.h"

namespace coz::analysis {

// The load an experiment ran at: `--load F` (target F) or `--arrival-speedup D`; no
// amplification is target 1.
struct LoadLevel {
  double target = 1;
  double arrival_speedup_ns = 0;

  bool operator<(const LoadLevel& o) const;
  bool operator==(const LoadLevel& o) const;
  std::string label() const;  // "1x", "2.5x", "+750us/arrival"
};

// What a progress point measures in a profile (its record type: throughput-point or
// latency-point). Not the runtime's counter kinds (points/progress_points.h).
enum class PointMetric { kThroughput, kLatency };

// One progress point's counts in one experiment.
struct PointCounts {
  std::string name;
  PointMetric kind = PointMetric::kThroughput;
  double visits = 0;        // throughput visits, or latency arrivals
  double departures = 0;    // latency only
  double in_flight_ns = 0;  // latency only: time integral of requests in flight
};

struct Experiment {
  Location line;           // the selected line: a `file:line`, or kNoLine
  double speedup = 0;      // 0..1
  double duration_ns = 0;  // effective: elapsed minus inserted delays
  double elapsed_ns = 0;   // real time (duration when the profile does not say)
  // Delays the threads that made the progress still owed at the end (`owed`; 0 when the profile
  // does not say): a large share of elapsed_ns marks a saturated experiment (saturated()).
  double owed_ns = 0;
  double selected_samples = 0;
  // Since its run began: the `start` field, or for profiles without it the elapsed times of the
  // run's experiments before it (Coz's: back to back, a little early).
  double start_ns = 0;
  LoadLevel level;
  double load_achieved = -1;  // the `load` field; negative when absent
  size_t run = 0;             // index into ProfileData::runs
  std::vector<PointCounts> points;

  // The threads that made the progress could not keep up: at the end they still owed more than
  // kSaturatedShare of the experiment's time in delays (a sped-up line that runs all the time
  // beside them raises the total faster than they can pause; docs/experiments.md).
  static constexpr double kSaturatedShare = 0.10;
  bool saturated() const { return owed_ns > kSaturatedShare * elapsed_ns; }
};

// One process of a run: its root (the startup record), a child process the runtime followed (a
// `process` record; a process that exec'd another program is a second entry with the same pid),
// or one known only by the `pid` of its samples records.
struct Process {
  uint64_t pid = 0;     // 0 when the record does not say
  uint64_t parent = 0;  // 0 when the record does not say
  std::string program;  // argv[0]; empty when unknown; `argv[0]@host` in a run across hosts
  std::string host;     // the machine it ran on, in a run across programs (coz coordinate)
  bool root = false;    // the process that began the run
  // Per line: its samples while running on the CPU, and its blocked samples (see Run).
  std::map<std::string, double> samples;
  std::map<std::string, double> blocked;
};

struct Run {
  std::string file;
  std::string program;       // argv[0], from the startup record (empty for Coz's profiles)
  bool has_runtime = false;  // the run ended normally and wrote its totals
  double runtime_ns = 0;
  std::map<std::string, double> samples;  // per line: samples taken while it ran on the CPU
  // Per line: blocked samples, one per sampling period a thread waited (off the CPU) in a blocking
  // call made on it. Lines with none are absent; a line may have these and no running samples.
  std::map<std::string, double> blocked;
  size_t experiments = 0;
  double next_start_ns = 0;     // where the next experiment without `start` is taken to begin
  bool written_by_coz = false;  // Coz's own profile (its startup record has no format)
  // How the runtime measured blocked time, as its startup record says: "calls" (timed blocking
  // calls), "off" (not measured), another word kept as written, or empty when it does not say.
  std::string off_cpu;
  // How threads were sampled, as the startup record says: "perf", "timer", or empty (older
  // profiles, Coz's: perf); and the timer's measured CPU time per signal (0: not said).
  std::string sampler;
  double sampler_resolution_ns = 0;
  // The root first (when the run has a startup record), then the others as the profile names
  // them. Their samples add up to `samples` and `blocked`, less those of samples records without
  // a pid in a run without a root (Coz's profiles).
  std::vector<Process> processes;
};

struct InputFile {
  std::string path;
  size_t records = 0;
  std::vector<ParseError> errors;  // the first kMaxListedErrors bad lines, in file order
  size_t errors_left_out = 0;      // bad lines after those, counted only
};

// The largest numbers a record may carry, so no sum, product or quotient of them overflows:
// times in ns (about three years) and counts per record. Durations and visit counts, which
// analysis divides by, are whole numbers; a fraction is rounded.
inline constexpr double kMaxRecordNs = 1e17;
// Coz 0.2 samples every millisecond and does not say so in its profiles.
inline constexpr double kCozSamplingPeriodNs = 1e6;
inline constexpr double kMaxRecordCount = 1e15;
inline constexpr double kMaxLoad = 1e6;  // load targets and achieved loads

class ProfileData {
 public:
  // Reads one file and merges it in, record by record (the records are not all held at once),
  // showing each record to `also` first when given. Returns false (and sets `error`) when it
  // cannot be read or passes the reader's bounds.
  bool read(const std::string& path, std::string* error,
            const std::function<void(const Record&)>& also = {});
  // The same for a profile in memory, `name` standing for its path (the viewer's reader).
  bool read_text(const std::string& name, std::string_view text, std::string* error);
  // Merges already-parsed records (the unit tests' profiles).
  void add(const std::string& file, const std::vector<Record>& records);

  const std::vector<Experiment>& experiments() const { return experiments_; }
  const std::vector<Run>& runs() const { return runs_; }
  const std::vector<InputFile>& inputs() const { return inputs_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  size_t sample_records() const { return sample_records_; }

 private:
  // Where the records of the file being merged stand.
  struct FileState {
    std::string file;
    size_t open = 0;        // 1 + index of the experiment later point records belong to; 0: none
    bool skipping = false;  // the last experiment record was rejected: so are its points
    bool wrapped_warned = false;
  };

  // Reads one input through `read_records` (a read_profile_records or read_profile_text call
  // with these callbacks).
  using RecordSource = std::function<bool(const std::function<void(Record&&)>&,
                                          const std::function<void(ParseError&&)>&, std::string*)>;
  bool read_input(const std::string& path, const RecordSource& read_records, std::string* error);
  Run& current_run(const std::string& file);
  void begin_file(const std::string& file);
  void add_record(const Record& r, FileState* state);
  void add_startup(const Record& r, FileState* state);
  static std::optional<std::string> read_experiment(const Record& r, Experiment* e);
  void add_experiment(const Record& r, FileState* state);
  void add_point(const Record& r, FileState* state);
  void add_runtime(const Record& r, FileState* state);
  void add_warning(std::string message);
  void add_process(const Record& r, const std::string& file);
  void add_samples(const Record& r, FileState* state);
  void complain(size_t line, std::string message);

  std::vector<Experiment> experiments_;
  std::vector<Run> runs_;
  std::vector<InputFile> inputs_;
  std::vector<std::string> warnings_;
  size_t sample_records_ = 0;
  bool run_open_ = false;
};

}  // namespace coz::analysis
