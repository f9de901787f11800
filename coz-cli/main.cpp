// The `coz` command: dispatches to its subcommands.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands/plot.h"
#include "commands/report.h"
#include "commands/run.h"

namespace {

const char* const kUsage =
    "usage: coz <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [options] --- program [args...]   profile a program (see coz run --help)\n"
    "  report [options] [profile.coz...]     show the causal profile (see coz report --help)\n"
    "  plot [options] [profile.coz...]       write it as an HTML page (see coz plot --help)\n"
    "\n"
    "options:\n"
    "  -h, --help      show this help\n"
    "      --version   show the version\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    printf("coz %s\n", COZ_VERSION);
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "run") {
    return coz::cli::run_command(args);
  }
  if (command == "report") {
    return coz::cli::report_command(args);
  }
  if (command == "plot") {
    return coz::cli::plot_command(args);
  }
  fprintf(stderr, "coz: error: unknown command '%s'; try coz --help\n", command.c_str());
  return 2;
}
