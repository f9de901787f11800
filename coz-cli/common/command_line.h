// What the three commands share about their command lines: CLI11 apps set up one way, one
// parse step, one-line usage errors and the exit statuses.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {  // <CLI/CLI.hpp> is large: only the sources that build or read apps include it
class App;
class Option;
}  // namespace CLI

namespace coz::cli {

// Exit statuses of `coz report` and `coz plot`, and of `coz run` before the program runs (after
// that, `coz run` exits with the program's own status; see run.h for the statuses it adds).
enum ExitStatus : int {
  kExitOk = 0,
  kExitNothingToShow = 1,  // read fine, but no line has enough data (the reason is on stderr)
  kExitUsage = 2,          // a bad option, or a file that cannot be read
};

// Sets up a CLI11 app named "coz <command>": -h/--help, and help that reads "usage: <usage>",
// the description, the options (descriptions wrapped to 80 columns), then `footer`.
void setup_app(CLI::App* app, const std::string& usage, const std::string& description,
               const std::string& footer);

// Adds a value option whose `accept` turns the text into a setting, or returns false with a
// whole one-line message. Given twice, a value option keeps the last; a list option (`repeat`)
// takes each. Every command's options go through here, so all say "needs a value" the same way.
CLI::Option* add_value_option(CLI::App* app, const std::string& flags,
                              const std::string& value_name, const std::string& help, bool repeat,
                              std::function<bool(const std::string&, std::string*)> accept);

// A switch: `--flag`, never `--flag=value`.
CLI::Option* add_switch(CLI::App* app, const std::string& flags, const std::string& help,
                        std::function<void()> set);

// kMan: the arguments were exactly `--man` (what `coz help --man COMMAND` passes): print
// man_page(app) instead of running.
enum class Parsed { kOk, kHelp, kMan, kError };

// Parses `args` (without the command's name). Words that are not options are left in
// `*positional` when it is given, and are an error otherwise. kError sets `error` to one line.
Parsed parse_command_line(CLI::App* app, const std::vector<std::string>& args,
                          std::vector<std::string>* positional, std::string* error);

// The command's help as a man page in roff (common/man_page.h), from the same app.
std::string man_page(const CLI::App& app);

// Prints "coz <command>: error: <error>; see coz <command> --help" and returns kExitUsage.
int usage_error(const CLI::App& app, const std::string& error);

// The other lines the commands print on stderr, one line each, with control characters escaped
// (a profile's names may be in them): "<who>: <text>"; and "<who>: error: <message>", which
// returns `status` (the message says what to do).
void tell(const std::string& who, const std::string& text);
int fail(const std::string& who, const std::string& message, int status);

// What follows a parse: -1 to go on (kOk); the help, or the man page, on stdout and kExitOk;
// usage_error(app, error) after an error.
int act_on_parse(const CLI::App& app, Parsed parsed, const std::string& error);

// parse_command_line, then act_on_parse.
int parse_or_exit(CLI::App* app, const std::vector<std::string>& args,
                  std::vector<std::string>* positional);

}  // namespace coz::cli
