// Line map: fixtures built in many DWARF flavours map known addresses to the right file:line,
// and objects loaded at run time (PIE, dlopen) use their real load bias.
#include "line/line_map.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "line/debug_precheck.h"
#include "test_support.h"

namespace coz {
namespace {

using test::fixture;
using test::marker_line;
using test::program_source;
using test::symbol_address;

struct Flavour {
  const char* binary;
  const char* debug_path;  // extra debug-file directory, or ""
};

class FixtureFlavours : public ::testing::TestWithParam<Flavour> {};

std::string line_at(const ObjectLines& lines, uintptr_t addr) {
  const AddressRange* r = lines.lookup(addr);
  return r ? r->line->name() : "(none)";
}

TEST_P(FixtureFlavours, KnownAddressesMapToTheirLines) {
  const Flavour& f = GetParam();
  std::string path = fixture(f.binary);
  std::string debug_path = f.debug_path[0] ? fixture(f.debug_path) : "";
  LineTable table;
  auto lines = load_object_lines(LoadedObject{path, 0, true}, Scope(), &table, debug_path);
  ASSERT_EQ(lines->status, DebugInfoStatus::kOk) << lines->message;

  std::string source = program_source("fixture.c");
  uintptr_t alpha = symbol_address(path, "fixture_alpha");
  uintptr_t beta = symbol_address(path, "fixture_beta");
  ASSERT_NE(alpha, 0u);
  ASSERT_NE(beta, 0u);
  EXPECT_EQ(line_at(*lines, alpha), source + ":" + std::to_string(marker_line(source, "alpha")));
  EXPECT_EQ(line_at(*lines, beta), source + ":" + std::to_string(marker_line(source, "beta")));

  // The loop body has code of its own, somewhere inside fixture_beta.
  int loop = marker_line(source, "beta_loop");
  bool found_loop = false;
  for (const AddressRange& r : lines->ranges) {
    found_loop = found_loop || (r.line->line == static_cast<uint32_t>(loop) && r.lo > beta);
  }
  EXPECT_TRUE(found_loop);
  // Ranges are sorted and disjoint.
  for (size_t i = 1; i < lines->ranges.size(); i++) {
    EXPECT_LE(lines->ranges[i - 1].hi, lines->ranges[i].lo);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dwarf, FixtureFlavours,
    ::testing::Values(Flavour{"fixture_dwarf4", ""}, Flavour{"fixture_dwarf5", ""},
                      Flavour{"fixture_nopie", ""}, Flavour{"fixture_zlib", ""},
                      Flavour{"fixture_split", ""}, Flavour{"fixture_buildid", "debugroot"}),
    [](const ::testing::TestParamInfo<Flavour>& info) { return std::string(info.param.binary); });

TEST(LineMap, SplitDebugFileIsFoundThroughDebuglink) {
  LineTable table;
  auto lines = load_object_lines(LoadedObject{fixture("fixture_split"), 0, true}, Scope(), &table);
  ASSERT_EQ(lines->status, DebugInfoStatus::kOk);
  EXPECT_EQ(lines->debug_file, fixture("fixture_split.debug"));
}

TEST(LineMap, BuildIdDebugFileNeedsItsDirectory) {
  LineTable table;
  auto without =
      load_object_lines(LoadedObject{fixture("fixture_buildid"), 0, true}, Scope(), &table);
  EXPECT_EQ(without->status, DebugInfoStatus::kNoDebugInfo);
  auto with = load_object_lines(LoadedObject{fixture("fixture_buildid"), 0, true}, Scope(), &table,
                                fixture("debugroot"));
  ASSERT_EQ(with->status, DebugInfoStatus::kOk);
  EXPECT_NE(with->debug_file.find("/.build-id/"), std::string::npos) << with->debug_file;
}

TEST(LineMap, PrecheckTellsProgramsWithoutDebugInformationApart) {
  // No debug section and no separate debug file where the line map looks: surely none.
  EXPECT_FALSE(may_have_debug_info(fixture("fixture_nodebug"), ":.debug:/usr/lib/debug"));
  // Its own sections, a .gnu_debuglink file beside it, a build-id file under a given directory.
  EXPECT_TRUE(may_have_debug_info(fixture("fixture_dwarf5"), ":.debug:/usr/lib/debug"));
  EXPECT_TRUE(may_have_debug_info(fixture("fixture_split"), ":.debug:/usr/lib/debug"));
  EXPECT_FALSE(may_have_debug_info(fixture("fixture_buildid"), ":.debug:/usr/lib/debug"));
  EXPECT_TRUE(may_have_debug_info(fixture("fixture_buildid"),
                                  fixture("debugroot") + ":.debug:/usr/lib/debug"));
  // What it cannot read is for elfutils to explain.
  EXPECT_TRUE(may_have_debug_info("/no/such/file", ""));
  EXPECT_TRUE(may_have_debug_info(program_source("two_hot.c"), ""));
}

TEST(LineMap, NoDebugInfoSaysHowToFixIt) {
  LineTable table;
  auto lines =
      load_object_lines(LoadedObject{fixture("fixture_nodebug"), 0, true}, Scope(), &table);
  EXPECT_EQ(lines->status, DebugInfoStatus::kNoDebugInfo);
  EXPECT_NE(lines->message.find("-g"), std::string::npos) << lines->message;
  EXPECT_TRUE(lines->ranges.empty());
}

TEST(LineMap, ZstdSectionsAreReadOrExplained) {
  LineTable table;
  std::string path = fixture("fixture_zstd");
  auto lines = load_object_lines(LoadedObject{path, 0, true}, Scope(), &table);
  if (lines->status == DebugInfoStatus::kOk) {
    std::string source = program_source("fixture.c");
    EXPECT_EQ(line_at(*lines, symbol_address(path, "fixture_alpha")),
              source + ":" + std::to_string(marker_line(source, "alpha")));
  } else {
    EXPECT_EQ(lines->status, DebugInfoStatus::kUnsupported);
    EXPECT_NE(lines->message.find("zstd"), std::string::npos) << lines->message;
    EXPECT_NE(lines->message.find("-gz=zlib"), std::string::npos) << lines->message;
  }
}

TEST(LineMap, NotAnElfFile) {
  LineTable table;
  auto lines =
      load_object_lines(LoadedObject{program_source("fixture.c"), 0, true}, Scope(), &table);
  EXPECT_EQ(lines->status, DebugInfoStatus::kCannotOpen);
}

TEST(LineMap, SourceScopeFiltersLines) {
  LineTable table;
  Scope only_other({}, {"other.c"});
  auto lines =
      load_object_lines(LoadedObject{fixture("fixture_dwarf5"), 0, true}, only_other, &table);
  ASSERT_EQ(lines->status, DebugInfoStatus::kOk);
  EXPECT_TRUE(lines->ranges.empty());
  EXPECT_EQ(lines->lines_in_scope, 0u);
}

// sort_threads is C++ built -O2 -g whose std::sort is partly inlined into one call line. With
// system files out of scope (the default), code whose innermost line is in the C++ headers goes
// to the user's line it was inlined into; out-of-line template instances (std::__introsort_loop,
// all header lines) map to nothing, so their samples fall to the call chain.
TEST(LineMap, UnitsReadInManySessionsGiveTheSameRanges) {
  // This test program: hundreds of units, read in one libdw session and in sessions of a few
  // thousand rows (each ended, and its memory freed, before the next resumes at the next unit).
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  std::string path(self, static_cast<size_t>(n));
  LineTable table;
  auto whole = load_object_lines(LoadedObject{path, 0, true}, Scope(), &table, "", SIZE_MAX);
  auto split = load_object_lines(LoadedObject{path, 0, true}, Scope(), &table, "", 3000);
  ASSERT_EQ(whole->status, DebugInfoStatus::kOk) << whole->message;
  ASSERT_EQ(split->status, DebugInfoStatus::kOk) << split->message;
  ASSERT_GT(whole->ranges.size(), 10000u);
  ASSERT_EQ(whole->ranges.size(), split->ranges.size());
  for (size_t i = 0; i < whole->ranges.size(); i++) {
    const AddressRange &a = whole->ranges[i], &b = split->ranges[i];
    ASSERT_TRUE(a.lo == b.lo && a.hi == b.hi && a.line == b.line) << i << ": " << a.line->name();
  }
  EXPECT_EQ(whole->lines_in_scope, split->lines_in_scope);
}

TEST(LineMap, InlinedSystemCodeIsCreditedToItsCallLine) {
  std::string path = fixture("sort_threads");
  std::string source = program_source("sort_threads.cpp");
  std::string call = source + ":" + std::to_string(marker_line(source, "sort_call"));
  LineTable table;
  auto user = load_object_lines(LoadedObject{path, 0, true}, Scope(), &table);
  auto all = load_object_lines(LoadedObject{path, 0, true}, Scope({}, {}, true), &table);
  ASSERT_EQ(user->status, DebugInfoStatus::kOk) << user->message;
  ASSERT_EQ(all->status, DebugInfoStatus::kOk) << all->message;
  for (const AddressRange& r : user->ranges) {
    EXPECT_EQ(*r.line->file, source) << r.line->name();
  }
  for (size_t i = 1; i < user->ranges.size(); i++) {
    EXPECT_LE(user->ranges[i - 1].hi, user->ranges[i].lo);
  }
  size_t to_call = 0, to_nothing = 0;
  Scope defaults;
  for (const AddressRange& r : all->ranges) {
    if (!defaults.is_system_source(*r.line->file)) {
      // User lines keep their addresses.
      const AddressRange* u = user->lookup(r.lo);
      ASSERT_NE(u, nullptr) << r.line->name();
      EXPECT_EQ(u->line, r.line);
      continue;
    }
    for (uintptr_t a = r.lo; a < r.hi; a++) {
      const AddressRange* u = user->lookup(a);
      if (!u) {
        to_nothing++;
      } else if (u->line->name() == call) {
        to_call++;
      }
    }
  }
  EXPECT_GE(to_call, 64u) << "bytes of inlined std::sort credited to " << call;
  EXPECT_GT(to_nothing, 0u) << "out-of-line std::__introsort_loop stays out of scope";
  EXPECT_LT(user->lines_in_scope, all->lines_in_scope);
}

TEST(LineMap, ProbeStopsAtFirstSourceInScope) {
  DebugProbe ok = probe_debug_info(LoadedObject{fixture("fixture_dwarf5"), 0, true}, Scope());
  EXPECT_EQ(ok.status, DebugInfoStatus::kOk);
  EXPECT_TRUE(ok.source_in_scope);
  DebugProbe none = probe_debug_info(LoadedObject{fixture("fixture_dwarf5"), 0, true},
                                     Scope({}, {"%/no/such/dir/%"}));
  EXPECT_EQ(none.status, DebugInfoStatus::kOk);
  EXPECT_FALSE(none.source_in_scope);
  DebugProbe nodebug = probe_debug_info(LoadedObject{fixture("fixture_nodebug"), 0, true}, Scope());
  EXPECT_EQ(nodebug.status, DebugInfoStatus::kNoDebugInfo);
}

// Loaded at run time: the library's bias comes from dl_iterate_phdr.
TEST(LineMap, DlopenedLibraryUsesItsLoadBias) {
  void* handle = dlopen(fixture("libfixture_lib.so").c_str(), RTLD_NOW);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto gamma = reinterpret_cast<uintptr_t>(dlsym(handle, "fixture_lib_gamma"));
  ASSERT_NE(gamma, 0u);

  std::vector<LoadedObject> objects;
  for_each_loaded_object(
      [](const LoadedObject& o, void* ctx) {
        static_cast<std::vector<LoadedObject>*>(ctx)->push_back(o);
      },
      &objects);
  ASSERT_FALSE(objects.empty());
  EXPECT_TRUE(objects[0].is_main);
  const LoadedObject* lib = nullptr;
  for (const LoadedObject& o : objects) {
    if (o.path.find("/libfixture_lib.so") != std::string::npos) {
      lib = &o;
    }
  }
  ASSERT_NE(lib, nullptr);
  EXPECT_NE(lib->bias, 0u);

  Scope scope({"%libfixture_lib.so"}, {});
  EXPECT_TRUE(scope.includes_binary(lib->path, false));
  LineTable table;
  LineMap map;
  map.add(load_object_lines(*lib, scope, &table));
  std::string source = program_source("fixture_lib.c");
  const AddressRange* r = map.lookup(gamma);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->line->name(), source + ":" + std::to_string(marker_line(source, "gamma")));
  EXPECT_TRUE(map.contains(lib->path, lib->bias));
  EXPECT_EQ(map.lookup(0x10), nullptr);
  dlclose(handle);
}

// The marker must stay on the probe's one line.
// clang-format off
__attribute__((noipa)) int line_map_test_probe(int x) { return x * 3 + 1; } /* LINE:probe */
// clang-format on

// The test executable itself is PIE: its real bias must shift every range.
TEST(LineMap, MainExecutableAtItsRealAddress) {
  std::vector<LoadedObject> objects;
  for_each_loaded_object(
      [](const LoadedObject& o, void* ctx) {
        static_cast<std::vector<LoadedObject>*>(ctx)->push_back(o);
      },
      &objects);
  ASSERT_FALSE(objects.empty());
  LineTable table;
  auto lines = load_object_lines(objects[0], Scope(), &table);
  ASSERT_EQ(lines->status, DebugInfoStatus::kOk) << lines->message;
  const AddressRange* r = lines->lookup(reinterpret_cast<uintptr_t>(&line_map_test_probe));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->line->line, static_cast<uint32_t>(marker_line(__FILE__, "probe")));
  EXPECT_NE(r->line->file->find("line_map_test.cpp"), std::string::npos);
}

TEST(LineTable, FindBySuffixAndAmbiguity) {
  LineTable table;
  const std::string* a = table.intern_file("/src/a/util.c");
  const std::string* b = table.intern_file("/src/b/util.c");
  SourceLine* la = table.intern_line(a, 10);
  table.intern_line(b, 10);
  SourceLine* la20 = table.intern_line(a, 20);
  EXPECT_EQ(table.intern_line(a, 10), la);
  EXPECT_EQ(table.find("a/util.c", 10), la);
  EXPECT_EQ(table.find("util.c", 20), la20);
  bool ambiguous = false;
  EXPECT_EQ(table.find("util.c", 10, &ambiguous), nullptr);
  EXPECT_TRUE(ambiguous);
  EXPECT_EQ(table.find("til.c", 20), nullptr);  // suffixes match whole path components
  EXPECT_EQ(table.size(), 3u);
}

}  // namespace
}  // namespace coz
