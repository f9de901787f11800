// `coz run` option parsing: every option, both separators, and one-line errors for bad values.
#include "commands/run_options.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "config/run_config.h"

namespace coz::cli {
namespace {

// Parses with an app of its own, as coz run does; false for malformed input (true for --help).
bool parse_run_options(const std::vector<std::string>& args, RunOptions* out, std::string* error) {
  CLI::App app("", "coz run");
  setup_run_app(&app, out);
  return parse_run_options(&app, args, out, error) != Parsed::kError;
}

RunOptions parse_ok(const std::vector<std::string>& args) {
  RunOptions o;
  std::string error;
  EXPECT_TRUE(parse_run_options(args, &o, &error)) << error;
  return o;
}

std::string parse_error(const std::vector<std::string>& args) {
  RunOptions o;
  std::string error;
  EXPECT_FALSE(parse_run_options(args, &o, &error));
  EXPECT_EQ(error.find('\n'), std::string::npos) << "errors are one line";
  return error;
}

TEST(RunOptions, Defaults) {
  RunOptions o = parse_ok({"---", "./prog", "a", "--b"});
  EXPECT_EQ(o.command, (std::vector<std::string>{"./prog", "a", "--b"}));
  EXPECT_EQ(o.config.output, "profile.coz");
  EXPECT_EQ(o.config.sampling_period_ns, 1000000u);
  EXPECT_EQ(o.config.fixed_speedup, -1);
  EXPECT_FALSE(o.config.end_to_end);
  EXPECT_FALSE(o.config.include_system);
  EXPECT_TRUE(o.config.binary_scope.empty());
}

TEST(RunOptions, EveryOption) {
  RunOptions o =
      parse_ok({"-b", "MAIN,%libx%", "--binary-scope=%liby%", "-s", "%/src/%", "-o", "out.coz",
                "--end-to-end", "--fixed-line", "main.c:42", "--fixed-speedup", "35",
                "--sampling-period", "500us", "-v", "--include-system", "--", "prog"});
  EXPECT_EQ(o.config.binary_scope, (std::vector<std::string>{"MAIN", "%libx%", "%liby%"}));
  EXPECT_EQ(o.config.source_scope, (std::vector<std::string>{"%/src/%"}));
  EXPECT_EQ(o.config.output, "out.coz");
  EXPECT_TRUE(o.config.end_to_end);
  EXPECT_EQ(o.config.fixed_line, "main.c:42");
  EXPECT_EQ(o.config.fixed_speedup, 35);
  EXPECT_EQ(o.config.sampling_period_ns, 500000u);
  EXPECT_TRUE(o.config.verbose);
  EXPECT_TRUE(o.config.include_system);
  EXPECT_EQ(o.command, (std::vector<std::string>{"prog"}));
}

TEST(RunOptions, ExperimentSettings) {
  RunOptions o =
      parse_ok({"--experiment-length", "50ms", "--zero-speedup-share", "0.25", "---", "p"});
  EXPECT_EQ(o.config.experiment_length_ns, 50000000u);
  EXPECT_DOUBLE_EQ(o.config.zero_speedup_share, 0.25);
  EXPECT_NE(parse_error({"--zero-speedup-share", "1.5", "---", "p"}).find("0 to 1"),
            std::string::npos);
  EXPECT_NE(parse_error({"--experiment-length", "10us", "---", "p"}).find("1ms"),
            std::string::npos);
  EXPECT_EQ(parse_ok({"--speedup-step", "20", "---", "p"}).config.speedup_step, 20);
  EXPECT_NE(parse_error({"--speedup-step", "30", "---", "p"}).find("divide 100"),
            std::string::npos);
}

TEST(RunOptions, Help) {
  CLI::App app("", "coz run");
  RunOptions o;
  setup_run_app(&app, &o);
  std::string error;
  EXPECT_EQ(parse_run_options(&app, {"-o", "x", "--help"}, &o, &error), Parsed::kHelp);
  std::string help = app.help();
  for (const ConfigOption& option : run_config_options()) {
    if (option.source == OptionSource::kFlag) {
      std::string flags = option.flags;
      EXPECT_NE(help.find(flags.substr(flags.rfind("--"))), std::string::npos) << flags;
    }
  }
  EXPECT_NE(help.find("--runs N"), std::string::npos) << help;
}

TEST(RunOptions, GivenTwiceTheLastCountsAndListsAccumulate) {
  RunOptions o =
      parse_ok({"-o", "a.coz", "--output", "b.coz", "-s", "%/a/%", "-s", "%/b/%", "--", "p"});
  EXPECT_EQ(o.config.output, "b.coz");
  EXPECT_EQ(o.config.source_scope, (std::vector<std::string>{"%/a/%", "%/b/%"}));
}

TEST(RunOptions, MalformedValues) {
  EXPECT_NE(parse_error({"--fixed-speedup", "150", "---", "p"}).find("0 to 100"),
            std::string::npos);
  EXPECT_NE(parse_error({"--fixed-speedup", "abc", "---", "p"}).find("--fixed-speedup"),
            std::string::npos);
  EXPECT_NE(parse_error({"--fixed-speedup=-5", "---", "p"}).find("0 to 100"), std::string::npos);
  EXPECT_NE(parse_error({"--fixed-line", "main.c", "---", "p"}).find("FILE:LINE"),
            std::string::npos);
  EXPECT_NE(parse_error({"--fixed-line", "main.c:0", "---", "p"}).find("FILE:LINE"),
            std::string::npos);
  EXPECT_NE(parse_error({"--fixed-line", "main.c:4x", "---", "p"}).find("FILE:LINE"),
            std::string::npos);
  EXPECT_NE(parse_error({"--sampling-period", "1", "---", "p"}).find("10us"), std::string::npos);
  EXPECT_NE(parse_error({"--sampling-period", "5parsecs", "---", "p"}).find("duration"),
            std::string::npos);
  EXPECT_NE(parse_error({"-o", "---", "p"}).find("needs a value"), std::string::npos);
  EXPECT_NE(parse_error({"-b", ",", "---", "p"}).find("pattern"), std::string::npos);
  EXPECT_NE(parse_error({"--end-to-end=yes", "---", "p"}).find("takes no value"),
            std::string::npos);
  EXPECT_NE(parse_error({"--frobnicate", "---", "p"}).find("unknown option --frobnicate"),
            std::string::npos);
}

TEST(RunOptions, MissingProgramOrSeparator) {
  EXPECT_NE(parse_error({}).find("no program"), std::string::npos);
  EXPECT_NE(parse_error({"---"}).find("no program"), std::string::npos);
  EXPECT_NE(parse_error({"./prog"}).find("---"), std::string::npos);
}

TEST(ParseDuration, UnitsAndPlainNanoseconds) {
  uint64_t ns = 0;
  EXPECT_TRUE(parse_duration_ns("750us", &ns));
  EXPECT_EQ(ns, 750000u);
  EXPECT_TRUE(parse_duration_ns("1ms", &ns));
  EXPECT_EQ(ns, 1000000u);
  EXPECT_TRUE(parse_duration_ns("2.5ms", &ns));
  EXPECT_EQ(ns, 2500000u);
  EXPECT_TRUE(parse_duration_ns("1s", &ns));
  EXPECT_EQ(ns, 1000000000u);
  EXPECT_TRUE(parse_duration_ns("1234", &ns));
  EXPECT_EQ(ns, 1234u);
  EXPECT_FALSE(parse_duration_ns("-1ms", &ns));
  EXPECT_FALSE(parse_duration_ns("ms", &ns));
  EXPECT_FALSE(parse_duration_ns("1 ms", &ns));
  EXPECT_FALSE(parse_duration_ns("1e30s", &ns));
  EXPECT_FALSE(parse_duration_ns("nan", &ns));
}

TEST(RunOptions, LoadAmplificationAndCommandLinePoints) {
  RunOptions o = parse_ok({"--arrival-speedup", "750us", "--runs", "3", "--progress", "a.c:10",
                           "--progress", "b.c:2", "--sampled-progress", "src/c.c:7", "---", "p"});
  EXPECT_EQ(o.config.arrival_speedup_ns, 750000u);
  EXPECT_EQ(o.runs, 3);
  EXPECT_EQ(o.config.breakpoint_progress, (std::vector<std::string>{"a.c:10", "b.c:2"}));
  EXPECT_EQ(o.config.sampled_progress, (std::vector<std::string>{"src/c.c:7"}));
  EXPECT_EQ(parse_ok({"--arrival-speedup", "1ms", "---", "p"}).config.arrival_speedup_ns, 1000000u);
  EXPECT_EQ(parse_ok({"--arrival-speedup", "250000", "---", "p"}).config.arrival_speedup_ns,
            250000u);
  EXPECT_EQ(parse_ok({"--load", "1,1.5,2,3", "---", "p"}).loads,
            (std::vector<double>{1, 1.5, 2, 3}));
  EXPECT_EQ(parse_ok({"--load", "4", "---", "p"}).loads, (std::vector<double>{4}));
}

TEST(RunOptions, EndToEndSweepMeasuresLoadAlone) {
  EXPECT_EQ(parse_ok({"--end-to-end", "--load", "1,2", "---", "p"}).config.fixed_speedup, 0);
  // Not a sweep, not end to end, or a line or speedup asked for: left as given.
  EXPECT_EQ(parse_ok({"--end-to-end", "--load", "2", "---", "p"}).config.fixed_speedup, -1);
  EXPECT_EQ(parse_ok({"--load", "1,2", "---", "p"}).config.fixed_speedup, -1);
  EXPECT_EQ(parse_ok({"--end-to-end", "--load", "1,2", "--fixed-line", "a.c:3", "---", "p"})
                .config.fixed_speedup,
            -1);
  EXPECT_EQ(parse_ok({"--end-to-end", "--load", "1,2", "--fixed-speedup", "40", "---", "p"})
                .config.fixed_speedup,
            40);
}

TEST(RunOptions, BadAmplificationIsAOneLineError) {
  EXPECT_NE(parse_error({"--arrival-speedup", "-1ms", "---", "p"}).find("--arrival-speedup"),
            std::string::npos);
  EXPECT_NE(parse_error({"--arrival-speedup", "2h", "---", "p"}).find("--arrival-speedup"),
            std::string::npos);
  EXPECT_NE(parse_error({"--arrival-speedup", "0", "---", "p"}).find("--arrival-speedup"),
            std::string::npos);
  EXPECT_NE(parse_error({"--load", "0.5", "---", "p"}).find("from 1 to 1000"), std::string::npos);
  EXPECT_NE(parse_error({"--load", "2,x", "---", "p"}).find("'x'"), std::string::npos);
  EXPECT_NE(parse_error({"--load", "2", "--arrival-speedup", "1ms", "---", "p"}).find("not both"),
            std::string::npos);
  EXPECT_NE(parse_error({"--runs", "0", "---", "p"}).find("--runs"), std::string::npos);
  EXPECT_NE(parse_error({"--progress", "main.c", "---", "p"}).find("FILE:LINE"), std::string::npos);
  EXPECT_NE(parse_error({"--sampled-progress", "main.c:x", "---", "p"}).find("FILE:LINE"),
            std::string::npos);
}

}  // namespace
}  // namespace coz::cli
