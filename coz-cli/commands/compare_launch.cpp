// Starting one run of `coz compare` (see compare_launch.h).
#include "commands/compare_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "base/platform.h"
#include "commands/signal_relay.h"
#include "config/run_config.h"
#include "layout/layout_shift.h"
#include "record/profile_format.h"

extern char** environ;

namespace coz::cli {
namespace {

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by ") + strsignal(WTERMSIG(status));
  }
  return "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// The run's environment: the user's, less the runtime's settings and an earlier padding, plus
// the count-only settings and the preload, in the layout's order with its padding.
std::vector<std::string> run_environment(const LaunchSettings& settings, const RunConfig& config) {
  std::map<std::string, std::string> set;
  for (const auto& [name, value] : to_environment(config)) {
    set[name] = value;  // empty: unset, so an outer run's settings cannot leak in
  }
  set["COZ_SHARED"] = "";  // an outer run's hand-off, when coz compare runs inside one
  set[layout::kPadVariable] = "";
  std::string preload = settings.preload;
  std::vector<std::string> env;
  for (char** e = environ; e && *e; e++) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (name == "LD_PRELOAD") {
      std::string old = entry.substr(name.size() + 1);
      preload = old.empty() ? preload : old + ":" + preload;  // the user's go first
    } else if (set.find(name) == set.end()) {
      env.push_back(std::move(entry));
    }
  }
  for (const auto& [name, value] : set) {
    if (!value.empty()) {
      env.push_back(name + "=" + value);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  return layout::arrange_environment(layout::layout_for(config.layout_seed), std::move(env));
}

// Reads the counts the run's processes wrote to `path`.
bool read_counts(const std::string& path, LaunchResult* out, std::string* error) {
  std::map<std::string, double> visits, in_flight;
  std::vector<Record> records;
  std::vector<ParseError> errors;
  if (access(path.c_str(), F_OK) != 0) {
    return true;  // no process wrote any: the runtime did not start in the program
  }
  if (!read_profile(path, &records, &errors, error)) {
    return false;
  }
  for (const Record& r : records) {
    switch (r.kind) {
      case RecordKind::kCounts:
        out->processes++;
        break;
      case RecordKind::kThroughputPoint:
        visits[r.text(vocab::key::kName)] += static_cast<double>(r.u64(vocab::key::kDelta));
        break;
      case RecordKind::kLatencyPoint:
        visits[r.text(vocab::key::kName)] += static_cast<double>(r.u64(vocab::key::kDepartures));
        in_flight[r.text(vocab::key::kName)] += static_cast<double>(r.u64(vocab::key::kInFlightNs));
        break;
      default:
        break;
    }
  }
  out->visits.assign(visits.begin(), visits.end());
  out->in_flight_ns.assign(in_flight.begin(), in_flight.end());
  return true;
}

// Starts the program with `env`, waits for it and times it.
bool start_and_wait(const std::vector<std::string>& command, const std::string& path,
                    std::vector<std::string> env, const LaunchSettings& settings, LaunchResult* out,
                    std::string* error) {
  std::vector<char*> argv, envp;
  for (const std::string& a : command) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  for (std::string& e : env) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);
  fflush(nullptr);
  if (settings.relay) {
    settings.relay->hold();
  }
  uint64_t began = platform::monotonic_ns();
  pid_t child = fork();
  if (child != 0 && settings.relay) {
    settings.relay->started(child);
  }
  if (child < 0) {
    *error = std::string("cannot start the program: ") + strerror(errno) +
             "; free memory or raise the process limit (ulimit -u)";
    return false;
  }
  if (child == 0) {
    if (settings.relay) {
      settings.relay->in_child();
    }
    int said = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);  // coz's own stderr, for a failed exec
    int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0) {
      dup2(null_in, STDIN_FILENO);
    }
    if (!settings.show_output) {
      int null_out = open("/dev/null", O_WRONLY);
      if (null_out >= 0) {
        dup2(null_out, STDOUT_FILENO);
        dup2(null_out, STDERR_FILENO);
      }
    }
    execve(path.c_str(), argv.data(), envp.data());
    int err = errno;
    dprintf(said >= 0 ? said : STDERR_FILENO, "coz compare: error: cannot run %s: %s\n",
            path.c_str(), strerror(err));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = std::string("lost track of the program: ") + strerror(errno) +
               "; is something else reaping coz compare's children?";
      return false;
    }
  }
  out->seconds = static_cast<double>(platform::monotonic_ns() - began) / 1e9;
  if (settings.relay) {
    settings.relay->finished();
  }
  out->succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!out->succeeded) {
    out->failure = describe_status(status);
  }
  return true;
}

}  // namespace

bool launch_once(const std::vector<std::string>& command, const std::string& path, uint64_t seed,
                 const LaunchSettings& settings, LaunchResult* out, std::string* error) {
  *out = LaunchResult{};
  // A file per run: a process of an earlier run that outlives it (a daemon) writes into its own.
  static size_t runs = 0;
  RunConfig config;
  config.count_only = settings.counts_dir + "/counts." + std::to_string(++runs);
  config.layout_seed = seed;
  unlink(config.count_only.c_str());
  if (!start_and_wait(command, path, run_environment(settings, config), settings, out, error)) {
    return false;
  }
  bool read = read_counts(config.count_only, out, error);
  unlink(config.count_only.c_str());
  return read;
}

bool launch_profiled(const std::vector<std::string>& command, const std::string& path,
                     const RunConfig& config, const LaunchSettings& settings, LaunchResult* out,
                     std::string* error) {
  *out = LaunchResult{};
  return start_and_wait(command, path, run_environment(settings, config), settings, out, error);
}

bool fix_address_space() {
  int current = personality(0xffffffff);
  return current != -1 &&
         personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) != -1 &&
         (personality(0xffffffff) & ADDR_NO_RANDOMIZE) != 0;
}

}  // namespace coz::cli
