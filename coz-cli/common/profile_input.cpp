// Reading the profiles a command was given (see profile_input.h).
#include "common/profile_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "analysis/profile_data.h"
#include "common/command_line.h"

namespace coz::cli {

bool read_profiles(const std::vector<std::string>& files, const char* who,
                   analysis::ProfileData* data) {
  std::string error;
  for (const std::string& f : files) {
    if (!data->read(f, &error)) {
      if (access(f.c_str(), F_OK) != 0 && errno == ENOENT) {
        fail(who, error + "; write one with coz run -o " + f + " --- PROGRAM", kExitUsage);
      } else {
        fail(who, error, kExitUsage);
      }
      return false;
    }
  }
  size_t shown = 0, total = 0;
  for (const analysis::InputFile& in : data->inputs()) {
    for (const ParseError& e : in.errors) {
      if (total++ < 10) {
        // The message may quote the profile: tell() escapes its control characters.
        tell(who, "warning: " + e.file + ":" + std::to_string(e.line) + ": " + e.message);
        shown++;
      }
    }
    total += in.errors_left_out;
  }
  if (total > shown) {
    tell(who, "warning: " + std::to_string(total - shown) + " more malformed lines skipped");
  }
  return true;
}

}  // namespace coz::cli
