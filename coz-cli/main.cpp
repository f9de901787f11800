// The `coz` command: dispatches to its subcommands. Each parses its own options with CLI11
// (common/command_line.h), so all share one help layout and one error format.
#include <cstdio>
#include <string>
#include <vector>

#include "commands/plot.h"
#include "commands/report.h"
#include "commands/run.h"
#include "common/command_line.h"

namespace {

struct Command {
  const char* name;
  const char* usage;
  const char* summary;
  int (*main)(const std::vector<std::string>& args);
};

const Command kCommands[] = {
    {"run", "run [options] --- program [args...]", "profile a program", coz::cli::run_command},
    {"report", "report [options] [profile.coz...]", "show the causal profile",
     coz::cli::report_command},
    {"plot", "plot [options] [profile.coz...]", "write it as an HTML page", coz::cli::plot_command},
};

const Command* find(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) {
      return &c;
    }
  }
  return nullptr;
}

void usage(FILE* out) {
  fputs("usage: coz <command> [options]\n\ncommands:\n", out);
  for (const Command& c : kCommands) {
    fprintf(out, "  %-38s %s\n", c.usage, c.summary);
  }
  fputs(
      "\n  coz help COMMAND (or coz COMMAND --help) explains one.\n\noptions:\n"
      "  -h, --help      show this help\n"
      "      --version   show the version\n",
      out);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    usage(stderr);
    return coz::cli::kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && args.size() == 1)) {
    usage(stdout);
    return coz::cli::kExitOk;
  }
  if (args[0] == "--version") {
    printf("coz %s\n", COZ_VERSION);
    return coz::cli::kExitOk;
  }
  if (args[0] == "help") {
    const Command* c = find(args[1]);
    if (!c) {
      fprintf(stderr, "coz: error: no command '%s'; see coz --help\n", args[1].c_str());
      return coz::cli::kExitUsage;
    }
    return c->main({"--help"});
  }
  const Command* c = find(args[0]);
  if (!c) {
    fprintf(stderr, "coz: error: unknown command '%s'; see coz --help\n", args[0].c_str());
    return coz::cli::kExitUsage;
  }
  args.erase(args.begin());
  return c->main(args);
}
