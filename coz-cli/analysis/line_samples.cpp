// Running and blocked samples per line (see line_samples.h).
#include "analysis/line_samples.h"

namespace coz::analysis {

LineSamples line_samples(double running, double blocked) {
  LineSamples s{running, blocked};
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
  for (auto& [line, s] : sums) {
    s = line_samples(s.running, s.blocked);
  }
  return sums;
}

}  // namespace coz::analysis
