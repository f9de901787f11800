// Scope patterns: `%` and `*` wildcards, MAIN, base-name matching, coz.h never in scope.
#include "line/scope.h"

#include <gtest/gtest.h>

namespace coz {
namespace {

TEST(PatternMatches, Wildcards) {
  EXPECT_TRUE(pattern_matches("%", ""));
  EXPECT_TRUE(pattern_matches("%", "/any/thing.c"));
  EXPECT_TRUE(pattern_matches("*", "x"));
  EXPECT_TRUE(pattern_matches("/src/%.c", "/src/a/b.c"));
  EXPECT_TRUE(pattern_matches("%/lib*.so%", "/usr/lib/libfoo.so.1"));
  EXPECT_FALSE(pattern_matches("/src/%.c", "/src/a/b.h"));
  EXPECT_TRUE(pattern_matches("a%b%c", "aXXbYYc"));
  EXPECT_FALSE(pattern_matches("a%b%c", "aXXcYYb"));
  EXPECT_TRUE(pattern_matches("exact.c", "exact.c"));
  EXPECT_FALSE(pattern_matches("exact.c", "exact.cc"));
  EXPECT_TRUE(pattern_matches("%%", "abc"));
}

TEST(Scope, DefaultsAreMainAndEverything) {
  Scope s;
  EXPECT_TRUE(s.includes_binary("/tmp/prog", true));
  EXPECT_FALSE(s.includes_binary("/usr/lib/libc.so.6", false));
  EXPECT_TRUE(s.includes_source("/tmp/prog.c"));
  EXPECT_TRUE(s.includes_source("/usr/include/c++/12/bits/stl_vector.h"));
}

TEST(Scope, CozHeaderIsNeverInScope) {
  Scope s({}, {"%"});
  EXPECT_FALSE(s.includes_source("/usr/include/coz.h"));
  EXPECT_FALSE(s.includes_source("/work/include/coz.h"));
  EXPECT_TRUE(s.includes_source("/work/include/mycoz.h"));
}

TEST(Scope, BinaryPatternsAndMain) {
  Scope s({"MAIN", "%libfoo%"}, {});
  EXPECT_TRUE(s.includes_binary("/tmp/prog", true));
  EXPECT_TRUE(s.includes_binary("/opt/lib/libfoo.so.2", false));
  EXPECT_FALSE(s.includes_binary("/opt/lib/libbar.so", false));
  Scope libs_only({"%libfoo%"}, {});
  EXPECT_FALSE(libs_only.includes_binary("/tmp/prog", true));
}

TEST(Scope, PatternWithoutSlashMatchesBaseName) {
  Scope s({}, {"main.c", "util*.c"});
  EXPECT_TRUE(s.includes_source("/home/me/src/main.c"));
  EXPECT_TRUE(s.includes_source("/home/me/src/util_str.c"));
  EXPECT_FALSE(s.includes_source("/home/me/src/other.c"));
  Scope with_dir({}, {"src/%"});
  EXPECT_FALSE(with_dir.includes_source("/home/me/src/main.c"));  // full-path match only
  Scope anchored({}, {"%/src/%"});
  EXPECT_TRUE(anchored.includes_source("/home/me/src/main.c"));
}

TEST(Scope, SplitList) {
  EXPECT_EQ(Scope::split_list("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(Scope::split_list("").empty());
  EXPECT_EQ(Scope::split_list("%"), (std::vector<std::string>{"%"}));
}

}  // namespace
}  // namespace coz
