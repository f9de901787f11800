// Each line's samples over every run of a profile: taken while it ran on the CPU, and blocked
// (waiting off the CPU in a blocking call made on it), with the share of the two that waited.
// Pure functions over ProfileData. When a run had several processes, also each one's part.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/profile_data.h"

namespace coz::analysis {

// A line that mostly waits: the remedy is less waiting, not faster code. At this share of blocked
// samples or more, a line is marked off-cpu.
inline constexpr double kOffCpuShare = 0.5;

// One process's samples of a line.
struct ProcessSamples {
  uint64_t pid = 0;
  std::string program;  // empty when unknown
  bool root = false;    // the process that began its run
  double running = 0;
  double blocked = 0;
};

struct LineSamples {
  double running = 0;        // samples while the line ran on the CPU
  double blocked = 0;        // blocked samples (profiles without `blocked`: 0)
  double blocked_share = 0;  // blocked / (running + blocked); 0 when both are 0
  bool off_cpu = false;      // blocked_share >= kOffCpuShare
  // Each process that sampled the line, in the order the runs list them (the root first); the
  // same process in several runs (the same pid and program) once. They add up to running and
  // blocked, less the samples of records without a pid in runs without a startup record.
  std::vector<ProcessSamples> processes;
};

// The share and the mark of `running` and `blocked` samples.
LineSamples line_samples(double running, double blocked);

// Every line with running or blocked samples in any run (lines with blocked samples alone
// included), by name, summed over the runs, with each process's part.
std::map<std::string, LineSamples> line_samples(const ProfileData& data);

}  // namespace coz::analysis
