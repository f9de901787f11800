// Man pages from the same source as the help: `coz help --man [COMMAND]` renders the CLI11 app
// that prints `coz COMMAND --help` as roff (man(7) macros). The build runs it to write coz.1,
// coz-run.1, coz-report.1 and coz-plot.1, so the pages and the help cannot drift apart.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace CLI {  // <CLI/CLI.hpp> is large: only the sources that build or read apps include it
class App;
class Option;
}  // namespace CLI

namespace coz::cli {

struct ManSection {
  std::string title;                                       // "OPTIONS"
  std::vector<std::pair<std::string, std::string>> items;  // term, text
  std::string text;                                        // a paragraph instead of items
};

struct ManPage {
  std::string name;      // "coz-run"
  std::string summary;   // what NAME says after the dash
  std::string command;   // "coz run": bold in the synopsis
  std::string synopsis;  // the rest of the usage line
  std::string description;
  std::vector<ManSection> sections;
  std::vector<std::string> see_also;  // page names, section 1
};

// Escapes `text` for roff: backslashes, hyphens (as \-, so options copy and search as typed),
// and a leading '.' or '\'' that would read as a request.
std::string roff_escape(const std::string& text);

// The page, titled with the upper-cased name and "coz-amp <version>".
std::string render_man(const ManPage& page, const std::string& version);

// A command's page from its app: `usage` is the help's usage line ("coz run [options] ..."),
// NAME's summary the description's first sentence, OPTIONS every option as --help lists them,
// NOTES the help's footer.
ManPage man_page_of(const CLI::App& app, const std::string& usage);

}  // namespace coz::cli
