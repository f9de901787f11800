// Each line's samples over every run of a profile: taken while it ran on the CPU, and blocked
// (waiting off the CPU in a blocking call made on it), with the share of the two that waited.
// Pure functions over ProfileData.
#pragma once

#include <map>
#include <string>

#include "analysis/profile_data.h"

namespace coz::analysis {

// A line that mostly waits: the remedy is less waiting, not faster code. At this share of blocked
// samples or more, a line is marked off-cpu.
inline constexpr double kOffCpuShare = 0.5;

struct LineSamples {
  double running = 0;        // samples while the line ran on the CPU
  double blocked = 0;        // blocked samples (profiles without `blocked`: 0)
  double blocked_share = 0;  // blocked / (running + blocked); 0 when both are 0
  bool off_cpu = false;      // blocked_share >= kOffCpuShare
};

// The share and the mark of `running` and `blocked` samples.
LineSamples line_samples(double running, double blocked);

// Every line with running or blocked samples in any run (lines with blocked samples alone
// included), by name, summed over the runs.
std::map<std::string, LineSamples> line_samples(const ProfileData& data);

}  // namespace coz::analysis
