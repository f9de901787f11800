// `coz coordinate` (see coordinate.h): options in, the coordinator's loop (coordinator/) run
// until the last member leaves or a signal ends it.
#include "commands/coordinate.h"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdlib>

#include "common/command_line.h"
#include "config/file_line.h"
#include "config/run_config.h"
#include "coordinator/coordinator.h"
#include "remote/secret_proof.h"

namespace coz::cli {
namespace {

const char* const kCoordinate = "coz coordinate";
std::atomic<bool> g_stop{false};

void on_stop(int) {
  g_stop.store(true);
}

void setup(CLI::App* app, coordinator::Settings* out, std::string* secret_file) {
  setup_app(app, "coz coordinate --listen HOST:PORT [options]",
            "Runs one causal-profiling experiment across programs and hosts: start each program "
            "with coz run --coordinator HOST:PORT; every member's samples of the line sped up "
            "delay every thread of every member, and the one profile (-o) has every member's "
            "experiments, processes and samples. Ends when the last member that joined has "
            "left, or on SIGINT/SIGTERM, writing what it has.",
            "Listening on any address but loopback needs a shared secret, given to the "
            "coordinator and every member alike in COZ_SECRET or a file (--secret-file), never on "
            "the command line. Exit status: 0 when the run ended and its profile was written, 2 "
            "for a usage error, an address it cannot listen on, or a profile it cannot write.");
  add_value_option(app, "--listen", "HOST:PORT",
                   "where members connect (default 127.0.0.1:7000; port 0 picks a free one)", false,
                   [out](const std::string& v, std::string*) {
                     out->listen = v;
                     return true;
                   });
  add_value_option(app, "-o,--output", "FILE", "the profile to append to (default: profile.coz)",
                   false, [out](const std::string& v, std::string* error) {
                     if (v.empty()) {
                       *error = "-o needs a file name";
                       return false;
                     }
                     out->output = v;
                     return true;
                   });
  add_value_option(app, "--secret-file", "FILE", "the run's shared secret (or COZ_SECRET)", false,
                   [secret_file](const std::string& v, std::string*) {
                     *secret_file = v;
                     return true;
                   });
  add_value_option(app, "--fixed-line", "FILE:LINE", "only speed up this line, in every member",
                   false, [out](const std::string& v, std::string* error) {
                     if (!parse_file_line(v)) {
                       *error = "--fixed-line " + v + " " + kNotFileLine;
                       return false;
                     }
                     out->fixed_line = v;
                     return true;
                   });
  add_value_option(app, "--fixed-speedup", "N", "only use this speedup, 0-100 (percent)", false,
                   [out](const std::string& v, std::string* error) {
                     char* end = nullptr;
                     long n = strtol(v.c_str(), &end, 10);
                     if (v.empty() || *end || n < 0 || n > 100) {
                       *error = "--fixed-speedup " + v + " is not a whole percentage from 0 to 100";
                       return false;
                     }
                     out->fixed_speedup = static_cast<int>(n);
                     return true;
                   });
  add_switch(app, "--end-to-end",
             "one experiment over the whole run, ended when its last member leaves",
             [out] { out->end_to_end = true; });
  add_value_option(app, "--experiment-length", "T", "first experiment length (default 500ms)",
                   false, [out](const std::string& v, std::string* error) {
                     if (!parse_duration_ns(v, &out->experiment_length_ns) ||
                         out->experiment_length_ns < 1000000) {
                       *error = "--experiment-length " + v + " is not a duration of 1ms or more";
                       return false;
                     }
                     return true;
                   });
  add_value_option(app, "--port-file", "FILE",
                   "write the port listened on to FILE (for scripts that use port 0)", false,
                   [out](const std::string& v, std::string*) {
                     out->port_file = v;
                     return true;
                   });
}

}  // namespace

int coordinate_command(const std::vector<std::string>& args) {
  CLI::App app("", "coz coordinate");
  coordinator::Settings settings;
  settings.listen = "127.0.0.1:7000";
  settings.output = kDefaultProfile;
  std::string secret_file;
  setup(&app, &settings, &secret_file);
  if (int status = parse_or_exit(&app, args, nullptr); status >= 0) {
    return status;
  }
  std::string why;
  RunConfig environment;
  if (!read_from_environment(kSecretVariable, &environment, &why)) {
    return fail(kCoordinate, why, kExitUsage);
  }
  if (!remote::read_secret(environment.secret, secret_file, &settings.secret, &why)) {
    return fail(kCoordinate, why + "; give a readable, non-empty file", kExitUsage);
  }
  struct sigaction sa = {};
  sa.sa_handler = on_stop;  // no SA_RESTART: the loop's poll returns
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return coordinator::coordinate(settings, g_stop);
}

}  // namespace coz::cli
