// Running and blocked samples per line (see line_samples.h).
#include "analysis/line_samples.h"

#include <tuple>

namespace coz::analysis {

LineSamples line_samples(double running, double blocked) {
  LineSamples s;
  s.running = running;
  s.blocked = blocked;
  double all = running + blocked;
  s.blocked_share = all > 0 ? blocked / all : 0;
  s.off_cpu = s.blocked_share >= kOffCpuShare;
  return s;
}

std::map<std::string, LineSamples> line_samples(const ProfileData& data) {
  std::map<std::string, LineSamples> sums;
  for (const Run& run : data.runs()) {
    for (const auto& [line, count] : run.samples) {
      sums[line].running += count;
    }
    for (const auto& [line, count] : run.blocked) {
      sums[line].blocked += count;
    }
  }
  // Each line's parts, indexed by pid and program (a run may have thousands of processes).
  std::map<std::tuple<std::string, uint64_t, std::string>, size_t> part_of;
  for (const Run& run : data.runs()) {
    for (const Process& p : run.processes) {
      for (const std::map<std::string, double>* counts : {&p.samples, &p.blocked}) {
        for (const auto& [line, count] : *counts) {
          std::vector<ProcessSamples>& parts = sums[line].processes;
          auto [at, added] = part_of.try_emplace({line, p.pid, p.program}, parts.size());
          if (added) {
            parts.push_back(ProcessSamples{p.pid, p.program, p.root, 0, 0});
          }
          (counts == &p.blocked ? parts[at->second].blocked : parts[at->second].running) += count;
        }
      }
    }
  }
  for (auto& [line, s] : sums) {
    std::vector<ProcessSamples> parts = std::move(s.processes);
    s = line_samples(s.running, s.blocked);
    s.processes = std::move(parts);
  }
  return sums;
}

}  // namespace coz::analysis
