// The run-wide options a member adopts or is refused for (see adopted_options.h).
#include "coordinator/adopted_options.h"

#include "config/file_line.h"

namespace coz::coordinator {

Adopted adopt_run_options(const remote::Message& hello, Settings* run) {
  Adopted a;
  std::string line = hello.text("fixed-line");
  uint64_t speedup = 0;
  bool has_speedup = hello.number("fixed-speedup", 100, &speedup);
  bool end_to_end = hello.text("end-to-end") == "1";
  if (!line.empty() && !parse_file_line(line)) {
    a.refusal = "its --fixed-line " + line + " " + kNotFileLine;
  } else if (!line.empty() && !run->fixed_line.empty() && line != run->fixed_line) {
    a.refusal = "its --fixed-line " + line + " is not the run's " + run->fixed_line;
  } else if (has_speedup && run->fixed_speedup >= 0 &&
             static_cast<int>(speedup) != run->fixed_speedup) {
    a.refusal = "its --fixed-speedup " + std::to_string(speedup) + " is not the run's " +
                std::to_string(run->fixed_speedup);
  }
  if (!a.refusal.empty()) {
    return a;
  }
  if (!line.empty() && run->fixed_line.empty()) {
    run->fixed_line = line;
    a.taken.push_back("--fixed-line " + line);
  }
  if (has_speedup && run->fixed_speedup < 0) {
    run->fixed_speedup = static_cast<int>(speedup);
    a.taken.push_back("--fixed-speedup " + std::to_string(speedup));
  }
  if (end_to_end && !run->end_to_end) {
    run->end_to_end = true;
    a.taken.push_back("--end-to-end");
  }
  return a;
}

}  // namespace coz::coordinator
