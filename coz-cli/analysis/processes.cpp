// Processes and the programs that sampled a line (see processes.h).
#include "analysis/processes.h"

#include <algorithm>

namespace coz::analysis {

bool several_processes(const ProfileData& data) {
  return std::any_of(data.runs().begin(), data.runs().end(),
                     [](const Run& run) { return run.processes.size() > 1; });
}

std::vector<ProgramShare> programs_of(const std::vector<ProcessSamples>& parts) {
  std::vector<ProgramShare> programs;
  double total = 0;
  for (const ProcessSamples& p : parts) {
    if (p.running + p.blocked <= 0) {
      continue;  // a record of no samples
    }
    auto it = std::find_if(programs.begin(), programs.end(),
                           [&p](const ProgramShare& g) { return g.program == p.program; });
    if (it == programs.end()) {
      it = programs.insert(programs.end(), ProgramShare{p.program, {}, 0, 0, false});
    }
    it->pids.push_back(p.pid);
    it->samples += p.running + p.blocked;
    it->root = it->root || p.root;
    total += p.running + p.blocked;
  }
  for (ProgramShare& g : programs) {
    g.share = total > 0 ? g.samples / total : 0;
  }
  std::stable_sort(
      programs.begin(), programs.end(),
      [](const ProgramShare& a, const ProgramShare& b) { return a.samples > b.samples; });
  return programs;
}

bool origin_notable(const std::vector<ProgramShare>& programs) {
  if (programs.size() > 1) {
    return true;
  }
  return programs.size() == 1 && !programs[0].root;
}

}  // namespace coz::analysis
