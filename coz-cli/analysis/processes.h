// The processes of a profile's runs (a root and the child processes the runtime followed), and
// where a line's samples came from among them, by program. Pure functions over ProfileData and
// LineSamples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/line_samples.h"
#include "analysis/profile_data.h"

namespace coz::analysis {

// Whether any run had more than one process: only then do reports say which processes sampled a
// line (so a single-process profile reads as it always has).
bool several_processes(const ProfileData& data);

// The processes of one program (or of unknown programs) that sampled a line.
struct ProgramShare {
  std::string program;  // empty: processes known only by the pid of their samples
  std::vector<uint64_t> pids;
  double samples = 0;  // running and blocked
  double share = 0;    // of the line's samples in these parts, 0..1
  bool root = false;   // the root of a run is among them
};

// A line's process parts grouped by program, the most samples first (ties: the order the runs
// list them).
std::vector<ProgramShare> programs_of(const std::vector<ProcessSamples>& parts);

// Whether where a line's samples came from is worth a word: more than one program sampled it, or
// only child processes did.
bool origin_notable(const std::vector<ProgramShare>& programs);

}  // namespace coz::analysis
