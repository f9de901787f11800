// The `coz` command: dispatches to its subcommands. Each parses its own options with CLI11
// (common/command_line.h), so all share one help layout and one error format.
#include <cstdio>
#include <string>
#include <vector>

#include "commands/compare.h"
#include "commands/coordinate.h"
#include "commands/plot.h"
#include "commands/report.h"
#include "commands/run.h"
#include "common/command_line.h"
#include "common/man_page.h"

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
    {"coordinate", "coordinate --listen HOST:PORT [options]",
     "one experiment across programs and hosts", coz::cli::coordinate_command},
    {"compare", "compare [options] --- OLD [args] --- NEW [args]",
     "check an optimisation: old against new, layouts randomised", coz::cli::compare_command},
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

// `coz help --man`: the page for `coz` itself, from the same table as usage().
std::string top_man_page() {
  coz::cli::ManPage page;
  page.name = "coz";
  page.summary = "a causal profiler, with load amplification";
  page.command = "coz";
  page.synopsis = "COMMAND [options]";
  page.description =
      "Mark progress points in a program (COZ_PROGRESS, COZ_BEGIN/COZ_END, COZ_ARRIVAL from "
      "coz.h), run it under coz run, and get a causal profile: for each source line, how much "
      "the whole program would speed up if that line were made faster. coz report prints the "
      "profile with intervals and significance; coz plot writes it as an offline HTML page.";
  coz::cli::ManSection commands{"COMMANDS", {}, ""};
  for (const Command& c : kCommands) {
    commands.items.emplace_back(std::string("coz ") + c.usage, c.summary);
  }
  commands.items.emplace_back("coz help [--man] COMMAND",
                              "the help (or this manual's page) of one");
  page.sections.push_back(commands);
  page.sections.push_back(
      {"OPTIONS", {{"-h, --help", "show the usage"}, {"--version", "show the version"}}, ""});
  page.sections.push_back(
      {"ENVIRONMENT",
       {{"COZ_RUNTIME", "the runtime (libcoz.so) coz run preloads, instead of the installed one"},
        {"COZ_VIEWER_DIR", "the viewer's files coz plot bundles, instead of the installed ones"}},
       ""});
  page.see_also = {"coz-run", "coz-report", "coz-plot", "coz-compare"};
  return coz::cli::render_man(page, COZ_VERSION);
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
    printf("coz (coz-amp) %s\n", COZ_VERSION);
    return coz::cli::kExitOk;
  }
  if (args[0] == "help" && args[1] == "--man") {
    if (args.size() == 2) {
      fputs(top_man_page().c_str(), stdout);
      return coz::cli::kExitOk;
    }
    const Command* c = find(args[2]);
    if (!c) {
      fprintf(stderr, "coz: error: no command '%s'; see coz --help\n", args[2].c_str());
      return coz::cli::kExitUsage;
    }
    return c->main({"--man"});
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
