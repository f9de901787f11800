// What `coz coordinate` writes from its members' records (docs/across-hosts.md): pure steps from
// profile lines to profile lines, so the one profile of a run across programs is tested without
// sockets.
//
// A member forwards its local profile line by line. Its startup record becomes a process record
// of the coordinator's run (the run's root is the coordinator), and every process and samples
// record is tagged with the member's host, so two hosts' processes of one pid stay apart. Each
// member writes its own record of every experiment, with its own progress points; the
// coordinator merges them into one (merge_experiment).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coz::coordinator {

// What to do with one forwarded line.
enum class LineUse {
  kWrite,       // into the profile now (in `*out`, changed as said above)
  kExperiment,  // begins the member's record of an experiment
  kPoint,       // a progress point of the experiment record before it
  kDrop,        // the coordinator writes its own (runtime, shutdown), or not a record at all
};
LineUse use_of_line(std::string_view line, const std::string& host, std::string* out);

// One member's record of one experiment: its experiment line and its point lines.
struct MemberExperiment {
  std::string experiment;
  std::vector<std::string> points;
};

// The coordinator's own view of an experiment.
struct RunExperiment {
  std::string line;  // FILE:LINE, as offered
  int speedup = 0;   // percent
  uint64_t elapsed_ns = 0;
  uint64_t start_ns = 0;     // since the coordinator began
  uint64_t inserted_ns = 0;  // the highest delay total any member reported
  uint64_t run_id = 0;
};

// The experiment block (lines, each ending in a newline) for the profile: the coordinator's
// line and speedup; points added up by name over the members; the elapsed time of the member
// whose points saw the most visits, whose clock measured them (the coordinator's own when no
// member has points); the delays inserted, the highest total any member ended with (the run's
// total: each member's record has all its own raises, which reach the others late);
// selected-line samples summed. `visits`: the progress points' visits in all (throughput deltas,
// latency arrivals and departures) and at the least visited one, as the local runner counts them
// for the experiment cycle (ExperimentCycle::end).
struct MergedVisits {
  uint64_t total = 0;
  uint64_t fewest = 0;
};
std::string merge_experiment(const RunExperiment& run, const std::vector<MemberExperiment>& members,
                             MergedVisits* visits);

// The coordinator's own startup record (the run's root: coz-coordinate@HOST) and its runtime
// record (`ran_ns` from the first member's join), each a line ending in a newline.
std::string coordinator_startup(uint64_t wall_ns, uint64_t pid, const std::string& host);
std::string coordinator_runtime(uint64_t ran_ns);

}  // namespace coz::coordinator
