// Scope patterns: `%` and `*` wildcards, MAIN, base-name matching, coz.h never in scope.
#include "line/scope.h"

#include <gtest/gtest.h>

#include <cstdlib>

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

TEST(Scope, DefaultsAreMainAndEverythingButSystemFiles) {
  Scope s;
  EXPECT_TRUE(s.includes_binary("/tmp/prog", true));
  EXPECT_FALSE(s.includes_binary("/usr/lib/libc.so.6", false));
  EXPECT_TRUE(s.includes_source("/tmp/prog.c"));
  EXPECT_TRUE(s.includes_source("/usr/src/app/main.cpp"));
  EXPECT_TRUE(s.includes_source("/usr/includes.c"));  // a prefix of a root is not under it
  for (const char* system :
       {"/usr/include/c++/12/bits/stl_vector.h", "/usr/include/stdio.h",
        "/usr/local/include/boost/any.hpp", "/usr/lib/gcc/x86_64-linux-gnu/12/include/emmintrin.h",
        "/usr/lib/llvm-14/lib/clang/14.0.6/include/xmmintrin.h",
        "/rustc/90b35a62/library/core/src/ptr/mod.rs", "/rust/deps/memchr-2.7.6/src/memchr.rs"}) {
    EXPECT_FALSE(s.includes_source(system)) << system;
    EXPECT_TRUE(s.is_system_source(system)) << system;
  }
}

TEST(Scope, CargoAndRustupHomesAreSystem) {
  const char* old_home = getenv("HOME");
  std::string home = old_home ? old_home : "";
  setenv("HOME", "/home/me", 1);
  setenv("CARGO_HOME", "/opt/cargo/", 1);
  setenv("RUSTUP_HOME", "/opt/rustup", 1);
  Scope s;
  unsetenv("CARGO_HOME");
  unsetenv("RUSTUP_HOME");
  if (old_home) {
    setenv("HOME", home.c_str(), 1);
  } else {
    unsetenv("HOME");
  }
  for (const char* system :
       {"/home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f/coz-0.1.3/src/lib.rs",
        "/home/me/.cargo/git/checkouts/x/src/lib.rs",
        "/home/me/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/lib.rs",
        "/opt/cargo/registry/src/x/lib.rs", "/opt/cargo/git/checkouts/y/lib.rs",
        "/opt/rustup/toolchains/z/lib.rs"}) {
    EXPECT_FALSE(s.includes_source(system)) << system;
  }
  EXPECT_TRUE(s.includes_source("/home/me/.cargo/bin/notes.rs"));  // only registry and git
  EXPECT_TRUE(s.includes_source("/home/me/project/src/main.rs"));
}

TEST(Scope, IncludeSystemPutsSystemFilesBack) {
  Scope s({}, {}, true);
  EXPECT_TRUE(s.includes_source("/usr/include/c++/12/bits/stl_algo.h"));
  EXPECT_TRUE(s.includes_source("/rustc/abc/library/core/src/ptr/mod.rs"));
  EXPECT_TRUE(s.includes_source("/tmp/prog.c"));
  EXPECT_FALSE(s.includes_source("/usr/include/coz.h"));
  Scope narrowed({}, {"%.rs"}, true);
  EXPECT_TRUE(narrowed.includes_source("/rustc/abc/library/core/src/ptr/mod.rs"));
  EXPECT_FALSE(narrowed.includes_source("/usr/include/stdio.h"));
}

// A pattern that starts with a literal names its files, system ones too; a pattern that starts
// with a wildcard (`%`, `%.h`, `*/bits/*`) does not reach into system directories.
TEST(Scope, PatternsNamingSystemFilesIncludeThem) {
  Scope s({}, {"/usr/include/%", "stl_algo.h", "%.h", "*/bits/*"});
  EXPECT_TRUE(s.includes_source("/usr/include/stdio.h"));
  EXPECT_TRUE(s.includes_source("/usr/include/c++/12/bits/stl_algo.h"));
  EXPECT_FALSE(s.includes_source("/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h"));
  EXPECT_FALSE(s.includes_source("/usr/local/include/bits/x.c"));
  EXPECT_TRUE(s.includes_source("/home/me/src/util.h"));
  EXPECT_TRUE(s.includes_source("/home/me/bits/util.c"));
  EXPECT_FALSE(s.includes_source("/usr/include/coz.h"));
}

TEST(Scope, ExplicitSystemRoots) {
  Scope s({}, {}, false, {"/sdk/"});
  EXPECT_FALSE(s.includes_source("/sdk/include/x.h"));
  EXPECT_TRUE(s.includes_source("/usr/include/stdio.h"));
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

}  // namespace
}  // namespace coz
