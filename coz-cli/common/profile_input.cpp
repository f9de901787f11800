// Reading the profiles a command was given (see profile_input.h).
#include "common/profile_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "analysis/profile_data.h"

namespace coz::cli {

bool read_profiles(const std::vector<std::string>& files, const char* who,
                   analysis::ProfileData* data) {
  std::string error;
  for (const std::string& f : files) {
    if (!data->read(f, &error)) {
      if (access(f.c_str(), F_OK) != 0 && errno == ENOENT) {
        fprintf(stderr, "%s: error: %s; write one with coz run -o %s --- PROGRAM\n", who,
                error.c_str(), f.c_str());
      } else {
        fprintf(stderr, "%s: error: %s\n", who, error.c_str());
      }
      return false;
    }
  }
  size_t shown = 0, total = 0;
  for (const analysis::InputFile& in : data->inputs()) {
    for (const ParseError& e : in.errors) {
      if (total++ < 10) {
        // The message may quote the profile: its control bytes are shown as '?', never sent to the
        // terminal.
        std::string message = e.message;
        for (char& c : message) {
          c = static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
        }
        fprintf(stderr, "%s: warning: %s:%zu: %s\n", who, e.file.c_str(), e.line, message.c_str());
        shown++;
      }
    }
    total += in.errors_left_out;
  }
  if (total > shown) {
    fprintf(stderr, "%s: warning: %zu more malformed lines skipped\n", who, total - shown);
  }
  return true;
}

}  // namespace coz::cli
