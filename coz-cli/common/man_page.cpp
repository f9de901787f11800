// Roff rendering of the commands' help (see man_page.h).
#include "common/man_page.h"

#include <CLI/CLI.hpp>

namespace coz::cli {
namespace {

// The first sentence of `text`, without its full stop, lower-cased at the start ("Runs the
// program ..." -> "runs the program ...") as man pages' NAME lines read.
std::string first_sentence(const std::string& text) {
  size_t end = text.find(". ");
  std::string s = text.substr(0, end == std::string::npos ? text.size() : end);
  if (!s.empty() && s.back() == '.') {
    s.pop_back();
  }
  if (s.size() > 1 && s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z')) {
    s[0] = static_cast<char>(s[0] - 'A' + 'a');
  }
  return s;
}

// "-b,--binary-scope" -> "-b, --binary-scope"
std::string flags_of(const CLI::Option& option) {
  std::string out;
  for (const std::string& name : option.get_snames()) {
    out += (out.empty() ? "-" : ", -") + name;
  }
  for (const std::string& name : option.get_lnames()) {
    out += (out.empty() ? "--" : ", --") + name;
  }
  return out;
}

}  // namespace

std::string roff_escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); i++) {
    char c = text[i];
    bool line_start = i == 0 || text[i - 1] == '\n';
    if (line_start && (c == '.' || c == '\'')) {
      out += "\\&";
    }
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_man(const ManPage& page, const std::string& version) {
  std::string title;
  for (char c : page.name) {
    title += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  std::string out = ".TH " + title + " 1 \"\" \"coz-amp " + version + "\" \"coz-amp manual\"\n";
  out += ".SH NAME\n" + roff_escape(page.name) + " \\- " + roff_escape(page.summary) + "\n";
  out += ".SH SYNOPSIS\n.B " + roff_escape(page.command) + "\n" + roff_escape(page.synopsis) + "\n";
  out += ".SH DESCRIPTION\n" + roff_escape(page.description) + "\n";
  for (const ManSection& section : page.sections) {
    out += ".SH " + section.title + "\n";
    if (!section.text.empty()) {
      out += roff_escape(section.text) + "\n";
    }
    for (const auto& [term, text] : section.items) {
      out += ".TP\n.B " + roff_escape(term) + "\n" + roff_escape(text) + "\n";
    }
  }
  if (!page.see_also.empty()) {
    out += ".SH SEE ALSO\n";
    for (size_t i = 0; i < page.see_also.size(); i++) {
      out += ".BR " + roff_escape(page.see_also[i]) + " (1)" +
             (i + 1 < page.see_also.size() ? ",\n" : "\n");
    }
  }
  return out;
}

ManPage man_page_of(const CLI::App& app, const std::string& usage) {
  ManPage page;
  std::string name = app.get_name();  // "coz run"
  page.name = name;
  for (char& c : page.name) {
    c = c == ' ' ? '-' : c;
  }
  page.summary = first_sentence(app.get_description());
  page.command = name;
  page.synopsis = usage.rfind(name, 0) == 0 ? usage.substr(name.size() + 1) : usage;
  page.description = app.get_description();
  ManSection options{"OPTIONS", {}, ""};
  for (const CLI::Option* option : app.get_options()) {
    std::string term = flags_of(*option);
    if (option->get_type_size() != 0) {
      term += " " + option->get_type_name();
    }
    options.items.emplace_back(term, option->get_description());
  }
  page.sections.push_back(options);
  if (!app.get_footer().empty()) {
    page.sections.push_back({"NOTES", {}, app.get_footer()});
  }
  page.see_also = {"coz"};
  for (const char* other : {"coz-run", "coz-report", "coz-plot"}) {
    if (page.name != other) {
      page.see_also.push_back(other);
    }
  }
  return page;
}

}  // namespace coz::cli
