// The run configuration's option table: what `coz run` exports, the runtime reads back exactly;
// defaults export nothing; bad values are one sentence naming the variable.
#include "config/run_config.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace coz {
namespace {

// The environment the runtime would see, as a lookup function over a map.
std::map<std::string, std::string> g_env;
const char* lookup(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

RunConfig round_trip(const RunConfig& config, std::vector<std::string>* errors) {
  g_env.clear();
  for (const auto& [name, value] : to_environment(config)) {
    if (!value.empty()) {
      g_env[name] = value;
    }
  }
  // The user's own variables pass through `coz run` untouched.
  for (const ConfigOption& o : run_config_options()) {
    if (o.source == OptionSource::kUser && !o.format(config).empty()) {
      g_env[o.env] = o.format(config);
    }
  }
  return from_environment(errors, lookup);
}

RunConfig everything_set() {
  RunConfig c;
  c.output = "/tmp/out dir/p.coz";
  c.binary_scope = {"MAIN", "%libx%"};
  c.source_scope = {"%/src/%", "/usr/include/%"};
  c.include_system = true;
  c.end_to_end = true;
  c.fixed_line = "dir/main.c:42";
  c.fixed_speedup = 0;
  c.sampling_period_ns = 250000;
  c.experiment_length_ns = 12345678;
  c.zero_speedup_share = 0.1;
  c.speedup_step = 25;
  c.breakpoint_progress = {"a.c:1", "b.c:2"};
  c.sampled_progress = {"c.c:3"};
  c.arrival_speedup_ns = 750001;
  c.load = 1.0 / 3 + 1;
  c.verbose = true;
  c.root_pid = 4242;
  c.run_id = 77;
  c.exec_ns = 123456789012345ull;
  c.count_only = "/tmp/coz-compare.x/counts";
  c.layout_seed = 987654321;
  c.debug_path = "/opt/debug";
  c.ledger_trace = "/tmp/ledger.trace";
  c.coordinator = "10.0.0.2:7000";
  c.secret_file = "/etc/coz/secret";
  c.off_cpu = false;
  c.follow_children = false;
  c.sampler = SamplerRequest::kTimer;
  c.secret = "s3cret";
  c.member_credit = false;
  return c;
}

TEST(RunConfig, EverySettingSurvivesTheRoundTrip) {
  std::vector<std::string> errors;
  RunConfig c = everything_set();
  EXPECT_EQ(round_trip(c, &errors), c);
  EXPECT_TRUE(errors.empty()) << errors[0];
}

TEST(RunConfig, EachSettingOnItsOwn) {
  // One field away from the default at a time: nothing else moves.
  RunConfig all = everything_set();
  for (const ConfigOption& o : run_config_options()) {
    RunConfig c;
    std::string why;
    ASSERT_TRUE(o.parse(o.format(all), &c, &why)) << o.env << ": " << why;
    EXPECT_FALSE(o.format(c).empty()) << o.env;
    std::vector<std::string> errors;
    EXPECT_EQ(round_trip(c, &errors), c) << o.env;
  }
}

TEST(RunConfig, DefaultsExportNothing) {
  for (const auto& [name, value] : to_environment(RunConfig())) {
    EXPECT_EQ(value, "") << name << " has a default of its own outside RunConfig";
  }
  std::vector<std::string> errors;
  EXPECT_EQ(round_trip(RunConfig(), &errors), RunConfig());
}

TEST(RunConfig, EveryVariableIsExportedOrPassedThroughOnce) {
  std::set<std::string> names;
  for (const ConfigOption& o : run_config_options()) {
    EXPECT_TRUE(names.insert(o.env).second) << o.env << " twice";
    EXPECT_EQ(std::string(o.env).rfind("COZ_", 0), 0u);
    EXPECT_EQ(o.source == OptionSource::kFlag, o.flags != nullptr) << o.env;
  }
  size_t exported = to_environment(RunConfig()).size();
  // All but the user's own: COZ_DEBUG_PATH, COZ_LEDGER_TRACE, COZ_SECRET, COZ_MEMBER_CREDIT.
  EXPECT_EQ(exported, names.size() - 4);
}

TEST(RunConfig, OneOptionIsReadAloneByTheSameRow) {
  g_env = {{"COZ_SECRET", "s3"}, {"COZ_MEMBER_CREDIT", "x"}, {"COZ_VERBOSE", "yes"}};
  RunConfig c;
  std::string error;
  EXPECT_TRUE(read_from_environment("COZ_SECRET", &c, &error, lookup));
  EXPECT_EQ(c.secret, "s3");
  EXPECT_FALSE(read_from_environment("COZ_MEMBER_CREDIT", &c, &error, lookup));
  EXPECT_EQ(error, "COZ_MEMBER_CREDIT='x' must be 1 or 0");
  EXPECT_TRUE(c.member_credit);
  EXPECT_TRUE(read_from_environment(kDebugPathVariable, &c, &error, lookup));  // unset
  EXPECT_EQ(c, [] {
    RunConfig expected;
    expected.secret = "s3";
    return expected;
  }());
}

TEST(RunConfig, UserSyntaxIsAcceptedToo) {
  // What the user types on `coz run` and what `format` writes both parse.
  RunConfig c;
  std::string why;
  for (const ConfigOption& o : run_config_options()) {
    std::string env = o.env;
    if (env == "COZ_SAMPLING_PERIOD") {
      ASSERT_TRUE(o.parse("500us", &c, &why));
    } else if (env == "COZ_EXPERIMENT_LENGTH") {
      ASSERT_TRUE(o.parse("2.5ms", &c, &why));
    } else if (env == "COZ_ARRIVAL_SPEEDUP") {
      ASSERT_TRUE(o.parse("1ms", &c, &why));
    }
  }
  EXPECT_EQ(c.sampling_period_ns, 500000u);
  EXPECT_EQ(c.experiment_length_ns, 2500000u);
  EXPECT_EQ(c.arrival_speedup_ns, 1000000u);
}

TEST(RunConfig, BadValuesAreOneSentenceEach) {
  g_env = {{"COZ_FIXED_SPEEDUP", "150"},
           {"COZ_SAMPLING_PERIOD", "5"},
           {"COZ_ZERO_SPEEDUP_SHARE", "x"},
           {"COZ_FIXED_LINE", "main.c"},
           {"COZ_VERBOSE", "yes"},
           {"COZ_PROGRESS_BREAKPOINTS", "a.c:1,b.c:2,c.c:3,d.c:4,e.c:5"}};
  std::vector<std::string> errors;
  RunConfig c = from_environment(&errors, lookup);
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_EQ(errors[0].rfind("COZ_FIXED_LINE='main.c' ", 0), 0u) << errors[0];
  for (const std::string& e : errors) {
    EXPECT_EQ(e.find('\n'), std::string::npos);
  }
  EXPECT_EQ(c.fixed_speedup, -1) << "a bad value leaves the default";
  EXPECT_NE(errors.back().find("at most 4 --progress points"), std::string::npos);
}

TEST(RunConfig, SplitList) {
  EXPECT_EQ(split_list("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
  EXPECT_EQ(split_list("%"), (std::vector<std::string>{"%"}));
}

}  // namespace
}  // namespace coz
