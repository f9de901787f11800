// What a test of an experiment runner (profiler/experiment_runner.h) builds it from: a profile in
// a temporary directory, one line of /src/FILE, the run's experiment state and progress points;
// and a wait for a step of the runner's own thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "profiler/experiment_runner.h"
#include "record/profile_writer.h"
#include "test_support.h"

namespace coz::test {

struct RunnerParts {
  RunnerParts(const std::string& file, int number) {
    std::string error;
    EXPECT_TRUE(writer.open(dir.file("p.coz"), &error)) << error;
    line = lines.intern_line(lines.intern_file("/src/" + file), number);
  }

  TempDir dir;
  ProfileWriter writer;
  LineTable lines;
  SourceLine* line = nullptr;
  ExperimentState state;
  ProgressPoints points;
};

// Waits until `done()`: a guard against a hang, not a deadline (the runner's steps are awaited
// one by one, so no step has to happen within any time).
template <typename F>
bool eventually(F&& done) {
  for (int i = 0; i < 60000 && !done(); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

}  // namespace coz::test
