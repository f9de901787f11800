// Saying that a profile was lost during `coz run`, and where its data went (see lost_output.h).
#include "commands/lost_output.h"

#include "common/command_line.h"

namespace coz::cli {

std::string report_lost_output(const OutputWatch& watch, const std::string& output, size_t run,
                               bool written) {
  const char* what = watch.removed() ? "removed" : "moved or replaced";
  if (watch.size() <= 0) {
    tell("coz", std::string("error: the profile ") + output + " was " + what + " during run " +
                    std::to_string(run) + ", before anything was written");
    return "";
  }
  std::string error;
  std::string copy = watch.save_copy(&error);
  if (copy.empty()) {
    tell("coz", std::string("error: the profile ") + output + " was " + what + " during run " +
                    std::to_string(run) + ", and what it held is lost: " + error +
                    "; keep the profile's directory until coz run ends");
    return "";
  }
  tell("coz", std::string("warning: the profile ") + output + " was " + what + " during run " +
                  std::to_string(run) +
                  (written ? ", and the runtime went on writing into the file it had opened" : "") +
                  "; what it held is saved as " + copy + " (see coz report " + copy + ")");
  return copy;
}

}  // namespace coz::cli
