// Run again, or stop (see run_plan.h).
#include "commands/run_plan.h"

#include "commands/run_progress.h"

namespace coz::cli {
namespace {

const char* plural(size_t n) {
  return n == 1 ? "" : "s";
}

// Rounded to whole seconds.
std::string seconds(double s) {
  return format_seconds(static_cast<int>(s + 0.5));
}

}  // namespace

NextStep next_step(const RunPlan& plan, const RunOutcome& o) {
  size_t total = plan.total();
  bool more = total ? o.done < total : true;
  if (!more) {
    return {};
  }
  std::string n = std::to_string(o.done);
  if (plan.repeat && !o.interrupted && !o.output_lost && !(o.failed && !plan.keep_going)) {
    if (plan.until_confident && !o.hopeless.empty()) {
      return {false,
              "--until-confident stops after run " + n + ": more runs cannot help: " + o.hopeless};
    }
    if (plan.until_confident && o.separated) {
      return {false, "the best line of each progress point is told apart after " + n + " run" +
                         plural(o.done) + " (" + seconds(o.elapsed_s) + "): done"};
    }
    if (o.elapsed_s >= plan.budget_s) {
      return {false, "the budget of " + seconds(plan.budget_s) + " is used after " + n + " run" +
                         plural(o.done) +
                         (plan.until_confident ? ", before the best lines were told apart" : "")};
    }
  }
  std::string remaining = total ? " " + std::to_string(total - o.done) : "";
  if (o.output_lost) {
    return {false, "the remaining runs were skipped: the profile's path is gone"};
  }
  if (o.interrupted) {
    return {false, "interrupted, so the remaining" + remaining + " runs were skipped"};
  }
  if (o.failed && !plan.keep_going) {
    return {false, "run " + n + " failed (" + o.failure + "), so the remaining" + remaining +
                       " runs were skipped; --keep-going runs them anyway"};
  }
  if (o.failed) {
    return {true, "run " + n + " failed (" + o.failure + "); going on (--keep-going)"};
  }
  return {true, ""};
}

}  // namespace coz::cli
