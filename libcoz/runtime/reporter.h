// What the runtime tells the user on stderr: errors and warnings from the process `coz run`
// started, and everything else only when asked to be verbose (--verbose).
// Threads: any ordinary context (it allocates); never a signal handler.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "base/platform.h"
#include "config/run_config.h"

namespace coz {

class Reporter {
 public:
  explicit Reporter(const RunConfig& config)
      : root_pid_(config.root_pid), verbose_(config.verbose) {}

  // Writes "coz: `message`": when `always`, from the root process (children, which inherit the
  // variable, stay quiet); otherwise only when verbose. A program preloaded without `coz run`
  // has no root pid: every process is its root.
  void say(const std::string& message, bool always) const {
    bool root = root_pid_ == 0 || root_pid_ == static_cast<uint64_t>(getpid());
    if ((always && root) || verbose_) {
      platform::write_stderr(("coz: " + message + "\n").c_str());
    }
  }

  // "12.3 ms", for messages.
  static std::string ms(uint64_t ns) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
    return buf;
  }

 private:
  uint64_t root_pid_;
  bool verbose_;
};

}  // namespace coz
