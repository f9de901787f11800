// The text report's words about where a line's samples came from: whether the line mostly waits
// (off-cpu N%), and, for a profile of several processes (a root and the child processes the
// runtime followed), each run's processes and which of them sampled the line. Text from the
// profile (program names) is made terminal-safe here.
#pragma once

#include <string>
#include <vector>

#include "analysis/causal_profile.h"

namespace coz::output {

// One line per run of several processes: "processes: 3 (server 1200, server 1201 child of 1200,
// worker 1202 child of 1201)"; beyond four processes, the root by its pid and the others of one
// program as a count ("worker x12"). "run N processes: ..." when the profile holds several runs.
// None when every run had one process.
std::vector<std::string> processes_lines(const analysis::ProfileData& data);

// "sampler: a sampling thread reading each thread's CPU clock (...), one signal per 1.1 ms of a
// thread's CPU time; ..." when any run was sampled without perf_event (the clock or the timer
// engine); empty when every run used perf_event.
std::string sampler_line(const analysis::ProfileData& data);

// A line's tags, space-separated: "off-cpu 83%" for a line that mostly waits; where its samples
// came from when that is worth a word (analysis/processes.h origin_notable) and `several`
// (analysis::several_processes) holds: "in: worker 1201", "in: worker x3", "in: server 62%, worker
// x3 38%". Empty when neither applies.
std::string sample_tags(const analysis::LineSamples& samples, bool several);

// The legends of the tags any of `series` has, one paragraph each.
std::vector<std::string> sample_legends(const std::vector<analysis::Series>& series, bool several);

}  // namespace coz::output
