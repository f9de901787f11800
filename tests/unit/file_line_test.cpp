// FILE:LINE's one parser (config/file_line.h): every strictness rule, and the callers that
// share it.
#include "config/file_line.h"

#include <gtest/gtest.h>

#include "config/run_config.h"

namespace coz {
namespace {

TEST(FileLine, SplitsAtTheLastColon) {
  FileLine at;
  ASSERT_TRUE(parse_file_line("/src/a:b.c:12", &at));
  EXPECT_EQ(at.file, "/src/a:b.c");
  EXPECT_EQ(at.line, 12u);
  ASSERT_TRUE(parse_file_line("main.c:1", &at));
  EXPECT_EQ(at.file, "main.c");
  EXPECT_EQ(at.line, 1u);
  EXPECT_TRUE(parse_file_line("main.c:42"));  // no parts wanted
}

TEST(FileLine, TakesLinesUpToTheLargest) {
  FileLine at;
  ASSERT_TRUE(parse_file_line("a.c:2147483647", &at));
  EXPECT_EQ(at.line, kMaxLineNumber);
  ASSERT_TRUE(parse_file_line("a.c:0000000007", &at));  // ten digits, leading zeros
  EXPECT_EQ(at.line, 7u);
}

TEST(FileLine, RefusesAnythingElseAndLeavesTheOutputAlone) {
  for (const char* bad :
       {"", "a.c", ":12", "a.c:", "a.c:0", "a.c:00", "a.c:-1", "a.c:+1", "a.c: 1", "a.c:1 ",
        "a.c:1x", "a.c:x1", "a.c:1.5", "a.c:2147483648", "a.c:4294967297", "a.c:00000000001",
        "a.c:99999999999999999999", "a.c:9223372036854775803", "a.c:12:"}) {
    FileLine at{"kept", 9};
    EXPECT_FALSE(parse_file_line(bad, &at)) << bad;
    EXPECT_EQ(at.file, "kept") << bad;
    EXPECT_EQ(at.line, 9u) << bad;
  }
}

TEST(FileLine, RunOptionsHoldToTheSameRules) {
  std::string why;
  for (const ConfigOption& o : run_config_options()) {
    if (o.value_name && std::string(o.value_name) == "FILE:LINE") {
      RunConfig c;
      EXPECT_TRUE(o.parse("a:b.c:3", &c, &why)) << o.env;
      for (const char* bad : {"a.c:0", "a.c:3x", ":3", "a.c:2147483648"}) {
        EXPECT_FALSE(o.parse(bad, &c, &why)) << o.env << " " << bad;
        EXPECT_EQ(why, kNotFileLine);
      }
    }
  }
}

}  // namespace
}  // namespace coz
