// Display names: the shortest path suffix, in whole components, that tells a file apart from the
// other files a report shows; golden cases for the shapes real profiles have (Rust's `mod.rs`,
// relative and absolute paths), and that the names never collide.
#include "analysis/display_names.h"

#include <gtest/gtest.h>

#include <set>

namespace coz::analysis {
namespace {

TEST(DisplayNames, UniqueBaseNamesStayBaseNames) {
  EXPECT_EQ(display_names({"/src/a.c", "/src/b.c", "/other/c.h"}),
            (DisplayNames{{"/src/a.c", "a.c"}, {"/src/b.c", "b.c"}, {"/other/c.h", "c.h"}}));
  EXPECT_EQ(display_names({"main.cpp"}), (DisplayNames{{"main.cpp", "main.cpp"}}));
  EXPECT_EQ(display_names({}), DisplayNames{});
}

TEST(DisplayNames, SharedBaseNamesGetTheShortestSuffixThatDiffers) {
  EXPECT_EQ(
      display_names({"/x/a/mod.rs", "/x/b/mod.rs", "/x/main.rs"}),
      (DisplayNames{
          {"/x/a/mod.rs", "a/mod.rs"}, {"/x/b/mod.rs", "b/mod.rs"}, {"/x/main.rs", "main.rs"}}));
  // A Rust program against its toolchain: only the names that collide are lengthened, each
  // until it differs.
  EXPECT_EQ(display_names({"/rustc/90b35a623/library/core/src/ptr/mod.rs",
                           "/rustc/90b35a623/library/alloc/src/vec/mod.rs",
                           "/home/u/proj/src/vec/mod.rs", "/home/u/proj/src/main.rs"}),
            (DisplayNames{{"/rustc/90b35a623/library/core/src/ptr/mod.rs", "ptr/mod.rs"},
                          {"/rustc/90b35a623/library/alloc/src/vec/mod.rs", "alloc/src/vec/mod.rs"},
                          {"/home/u/proj/src/vec/mod.rs", "proj/src/vec/mod.rs"},
                          {"/home/u/proj/src/main.rs", "main.rs"}}));
}

TEST(DisplayNames, APathThatIsASuffixOfAnotherIsShownWhole) {
  EXPECT_EQ(display_names({"/src/a.c", "/x/src/a.c"}),
            (DisplayNames{{"/src/a.c", "/src/a.c"}, {"/x/src/a.c", "x/src/a.c"}}));
  EXPECT_EQ(display_names({"a.c", "/src/a.c"}),
            (DisplayNames{{"a.c", "a.c"}, {"/src/a.c", "src/a.c"}}));
  EXPECT_EQ(display_names({"src/a.c", "/x/src/a.c"}),
            (DisplayNames{{"src/a.c", "src/a.c"}, {"/x/src/a.c", "x/src/a.c"}}));
}

TEST(DisplayNames, DuplicatesAndOddPathsAreNamedOnce) {
  EXPECT_EQ(display_names({"/a/x.c", "/a/x.c", "/b/x.c"}),
            (DisplayNames{{"/a/x.c", "a/x.c"}, {"/b/x.c", "b/x.c"}}));
  // No base name to speak of: each is shown whole, still distinct.
  EXPECT_EQ(display_names({"/", "x", "/x", "dir/", ""}),
            (DisplayNames{{"/", "/"}, {"x", "x"}, {"/x", "/x"}, {"dir/", "dir/"}, {"", ""}}));
}

// Whatever the paths, distinct files get distinct names, each a suffix of its path.
TEST(DisplayNames, NamesNeverCollide) {
  const std::vector<std::string> parts = {"a", "b", "mod.rs", "src", ""};
  std::vector<std::string> paths;
  for (const std::string& p : parts) {
    for (const std::string& q : parts) {
      for (const std::string& r : parts) {
        paths.push_back(p + "/" + q + "/" + r);
        paths.push_back(q + "/" + r);
        paths.push_back(r);
      }
    }
  }
  DisplayNames names = display_names(paths);
  std::set<std::string> seen;
  for (const auto& [path, name] : names) {
    EXPECT_TRUE(seen.insert(name).second) << "two files named `" << name << "`";
    EXPECT_EQ(path.compare(path.size() - name.size(), name.size(), name), 0)
        << name << " is no suffix of " << path;
  }
  EXPECT_EQ(seen.size(), std::set<std::string>(paths.begin(), paths.end()).size());
}

DisplayNames display_locations_of(const std::vector<std::string>& names) {
  std::vector<Location> locations;
  for (const std::string& n : names) {
    locations.push_back(parse_location(n));
  }
  return display_locations(locations);
}

TEST(DisplayLocations, KeepTheLineNumberAsWrittenAndTellFilesApart) {
  EXPECT_EQ(display_locations_of(
                {"/x/a/mod.rs:638", "/x/b/mod.rs:638", "/x/a/mod.rs:12", "/src/main.c:007"}),
            (DisplayNames{{"/x/a/mod.rs:638", "a/mod.rs:638"},
                          {"/x/b/mod.rs:638", "b/mod.rs:638"},
                          {"/x/a/mod.rs:12", "a/mod.rs:12"},
                          {"/src/main.c:007", "main.c:007"}}));
  // Not `file:line`: shown as it is, and no part of the others' naming.
  EXPECT_EQ(display_locations_of({"/src/a.c", "/src/a.c:3"}),
            (DisplayNames{{"/src/a.c", "/src/a.c"}, {"/src/a.c:3", "a.c:3"}}));
}

}  // namespace
}  // namespace coz::analysis
