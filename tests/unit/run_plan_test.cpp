// What `coz run` does after each run (commands/run_plan.h): one test per rule.
#include "commands/run_plan.h"

#include <gtest/gtest.h>

namespace coz::cli {
namespace {

RunPlan runs(size_t n, bool keep_going = false) {
  RunPlan p;
  p.runs = n;
  p.keep_going = keep_going;
  return p;
}

RunPlan budget(double seconds, bool until_confident = false, size_t cap = 0) {
  RunPlan p;
  p.repeat = true;
  p.runs = cap;
  p.budget_s = seconds;
  p.until_confident = until_confident;
  return p;
}

RunOutcome after(size_t done, double elapsed_s = 1) {
  RunOutcome o;
  o.done = done;
  o.elapsed_s = elapsed_s;
  return o;
}

TEST(RunPlan, OneRunStopsSilently) {
  NextStep step = next_step(runs(1), after(1));
  EXPECT_FALSE(step.again);
  EXPECT_EQ(step.message, "");
}

TEST(RunPlan, RunsEveryLevelTimesRuns) {
  RunPlan p = runs(2);
  p.levels = 3;
  EXPECT_EQ(p.total(), 6u);
  EXPECT_EQ(p.level_of(1), 0u);
  EXPECT_EQ(p.level_of(3), 1u);
  EXPECT_EQ(p.level_of(6), 2u);
  EXPECT_TRUE(next_step(p, after(5)).again);
  EXPECT_FALSE(next_step(p, after(6)).again);
}

TEST(RunPlan, AFailedRunStopsUnlessKeepGoing) {
  RunOutcome o = after(1);
  o.failed = true;
  o.failure = "exit status 3";
  NextStep stop = next_step(runs(3), o);
  EXPECT_FALSE(stop.again);
  EXPECT_EQ(stop.message,
            "run 1 failed (exit status 3), so the remaining 2 runs were skipped; --keep-going runs "
            "them anyway");
  NextStep on = next_step(runs(3, true), o);
  EXPECT_TRUE(on.again);
  EXPECT_EQ(on.message, "run 1 failed (exit status 3); going on (--keep-going)");
  o.done = 3;
  EXPECT_FALSE(next_step(runs(3), o).again) << "the last run: nothing is skipped";
  EXPECT_EQ(next_step(runs(3), o).message, "");
}

TEST(RunPlan, AStopRequestSkipsTheRest) {
  RunOutcome o = after(1);
  o.interrupted = true;
  EXPECT_EQ(next_step(runs(3), o).message, "interrupted, so the remaining 2 runs were skipped");
  EXPECT_EQ(next_step(budget(60), o).message, "interrupted, so the remaining runs were skipped");
  EXPECT_FALSE(next_step(budget(60), o).again);
}

TEST(RunPlan, ALostProfileSkipsTheRest) {
  RunOutcome o = after(1);
  o.output_lost = true;
  NextStep step = next_step(runs(3), o);
  EXPECT_FALSE(step.again);
  EXPECT_EQ(step.message, "the remaining runs were skipped: the profile's path is gone");
}

TEST(RunPlan, ABudgetRepeatsUntilUsed) {
  EXPECT_EQ(budget(90).total(), 0u);
  EXPECT_TRUE(next_step(budget(90), after(3, 89.4)).again);
  NextStep step = next_step(budget(90), after(4, 90.2));
  EXPECT_FALSE(step.again);
  EXPECT_EQ(step.message, "the budget of 1m30s is used after 4 runs");
  EXPECT_FALSE(next_step(budget(90, false, 2), after(2, 10)).again) << "--runs caps a budget";
}

TEST(RunPlan, UntilConfidentStopsOnceToldApart) {
  RunOutcome o = after(2, 61);
  EXPECT_TRUE(next_step(budget(600, true), o).again);
  o.separated = true;
  NextStep step = next_step(budget(600, true), o);
  EXPECT_FALSE(step.again);
  EXPECT_EQ(step.message,
            "the best line of each progress point is told apart after 2 runs (1m01s): done");
  o.separated = false;
  o.elapsed_s = 600;
  EXPECT_EQ(next_step(budget(600, true), o).message,
            "the budget of 10m00s is used after 2 runs, before the best lines were told apart");
}

TEST(RunPlan, UntilConfidentStopsWhenMoreRunsCannotHelp) {
  RunOutcome o = after(1);
  o.hopeless = "no progress point was ever visited: add COZ_PROGRESS";
  NextStep step = next_step(budget(600, true), o);
  EXPECT_FALSE(step.again);
  EXPECT_EQ(step.message,
            "--until-confident stops after run 1: more runs cannot help: no progress point was "
            "ever visited: add COZ_PROGRESS");
  EXPECT_TRUE(next_step(budget(600), o).again) << "a plain budget runs on";
}

}  // namespace
}  // namespace coz::cli
