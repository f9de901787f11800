// Command-line plumbing shared by `coz run`, `coz report` and `coz plot` (see command_line.h).
#include "common/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>

#include "common/man_page.h"
#include "output/terminal_text.h"

#ifndef COZ_VERSION
#define COZ_VERSION "unknown"
#endif

namespace coz::cli {
namespace {

constexpr size_t kWidth = 80;
constexpr size_t kNameColumn = 30;

// Help as `coz` prints it: the usage line, the description, the options with their
// descriptions wrapped to 80 columns, and the footer.
class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(std::string usage) : usage_(std::move(usage)) {
    column_width(kNameColumn);
  }
  std::string make_description(const CLI::App* app) const override {
    return "usage: " + usage_ + "\n\n" + output::wrap_words(app->get_description(), kWidth) + "\n";
  }
  std::string make_usage(const CLI::App*, std::string) const override { return ""; }
  std::string make_footer(const CLI::App* app) const override {
    return output::wrap_words(app->get_footer(), kWidth) + "\n";
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    return output::wrap_words(opt->get_description(), kWidth - kNameColumn);
  }
  const std::string& usage() const { return usage_; }
  std::string make_option_opts(const CLI::Option* opt) const override {
    // The value's name only ("FILE", not "FILE REQUIRED" or a default).
    return opt->get_type_size() == 0 ? std::string() : " " + opt->get_type_name();
  }

 private:
  std::string usage_;
};

// CLI11's own wording for the two mistakes its parser catches itself, in ours.
std::string translate(const CLI::ParseError& e) {
  std::string m = e.what();
  if (e.get_name() == "ArgumentMismatch") {
    size_t over = m.find(" was given a disallowed flag override");
    if (over != std::string::npos) {
      return "--" + m.substr(0, over) + " takes no value";
    }
    size_t colon = m.find(':');
    if (colon != std::string::npos) {
      return m.substr(0, colon) + " needs a value";
    }
  }
  return m;
}

}  // namespace

void setup_app(CLI::App* app, const std::string& usage, const std::string& description,
               const std::string& footer) {
  app->description(description);
  app->footer(footer);
  app->formatter(std::make_shared<WrappingFormatter>(usage));
  app->set_help_flag("-h,--help", "show this help");
  app->allow_extras();  // positional words and unknown options: parse_command_line decides
}

CLI::Option* add_value_option(CLI::App* app, const std::string& flags,
                              const std::string& value_name, const std::string& help, bool repeat,
                              std::function<bool(const std::string&, std::string*)> accept) {
  CLI::Option* opt = app->add_option(
      flags,
      [accept](const CLI::results_t& values) {
        for (const std::string& v : values) {
          std::string error;
          if (!accept(v, &error)) {
            throw CLI::ValidationError(error);
          }
        }
        return true;
      },
      help);
  opt->type_name(value_name)->type_size(1)->expected(1);
  opt->multi_option_policy(repeat ? CLI::MultiOptionPolicy::TakeAll
                                  : CLI::MultiOptionPolicy::TakeLast);
  return opt;
}

CLI::Option* add_switch(CLI::App* app, const std::string& flags, const std::string& help,
                        std::function<void()> set) {
  return app->add_flag_callback(flags, std::move(set), help)->disable_flag_override();
}

Parsed parse_command_line(CLI::App* app, const std::vector<std::string>& args,
                          std::vector<std::string>* positional, std::string* error) {
  if (args.size() == 1 && args[0] == "--man") {
    return Parsed::kMan;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return Parsed::kHelp;
  } catch (const CLI::ParseError& e) {
    *error = translate(e);
    return Parsed::kError;
  }
  for (const std::string& word : app->remaining()) {
    if (word.size() > 1 && word[0] == '-') {
      *error = "unknown option " + word;
      return Parsed::kError;
    }
    if (!positional) {
      *error = "unexpected argument '" + word + "'";
      return Parsed::kError;
    }
    positional->push_back(word);
  }
  return Parsed::kOk;
}

std::string man_page(const CLI::App& app) {
  auto formatter = std::dynamic_pointer_cast<WrappingFormatter>(app.get_formatter());
  std::string usage = formatter ? formatter->usage() : app.get_name() + " [options]";
  return render_man(man_page_of(app, usage), COZ_VERSION);
}

int usage_error(const CLI::App& app, const std::string& error) {
  fprintf(stderr, "%s: error: %s; see %s --help\n", app.get_name().c_str(), error.c_str(),
          app.get_name().c_str());
  return kExitUsage;
}

void tell(const std::string& who, const std::string& text) {
  fprintf(stderr, "%s: %s\n", who.c_str(), output::terminal_safe(text).c_str());
}

int fail(const std::string& who, const std::string& message, int status) {
  tell(who, "error: " + message);
  return status;
}

int act_on_parse(const CLI::App& app, Parsed parsed, const std::string& error) {
  switch (parsed) {
    case Parsed::kOk:
      return -1;
    case Parsed::kHelp:
      fputs(app.help().c_str(), stdout);
      return kExitOk;
    case Parsed::kMan:
      fputs(man_page(app).c_str(), stdout);
      return kExitOk;
    case Parsed::kError:
      break;
  }
  return usage_error(app, error);
}

int parse_or_exit(CLI::App* app, const std::vector<std::string>& args,
                  std::vector<std::string>* positional) {
  std::string error;
  Parsed parsed = parse_command_line(app, args, positional, &error);
  return act_on_parse(*app, parsed, error);
}

}  // namespace coz::cli
