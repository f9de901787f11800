// What `coz run` does after each run of the program: run it again, or stop, and what to say.
// Pure: the run's outcome, the counts, the time and the profile's state come in; unit-tested.
#pragma once

#include <cstddef>
#include <string>

namespace coz::cli {

// How many runs the command line asked for (fixed for the whole command).
struct RunPlan {
  size_t levels = 1;    // load levels (--load); 1 without
  size_t runs = 1;      // runs per level (--runs); with `repeat`, 0 when not capped
  bool repeat = false;  // --budget or --until-confident: the one run again and again
  double budget_s = 0;  // with `repeat`
  bool until_confident = false;
  bool keep_going = false;

  // The runs in all, or 0 when not known in advance (a budget without --runs).
  size_t total() const { return repeat ? runs : levels * runs; }
  // The load level (index) of run number `run` (1-based).
  size_t level_of(size_t run) const { return repeat || runs == 0 ? 0 : (run - 1) / runs; }
};

// How the run that just ended went, and where the profile stands.
struct RunOutcome {
  size_t done = 0;           // runs so far, this one included
  bool failed = false;       // exited non-zero, or was killed
  std::string failure;       // "exit status 3", "killed by Terminated"
  bool interrupted = false;  // a stop was asked for (Ctrl-C, SIGTERM, ...)
  bool output_lost = false;  // the profile's path no longer names the file written
  double elapsed_s = 0;      // since the first run started
  bool separated = false;    // the best line of each progress point is told apart
  std::string hopeless;      // why more runs cannot help (--until-confident), or empty
};

struct NextStep {
  bool again = false;
  std::string message;  // one line for stderr, without "coz: " and the line feed; may be empty
};

// Stops at the last run asked for; with `repeat`, once the lines are told apart or cannot be
// (--until-confident), or once the budget is used; after a lost profile or a stop request; after
// a failed run unless keep_going.
NextStep next_step(const RunPlan& plan, const RunOutcome& outcome);

}  // namespace coz::cli
