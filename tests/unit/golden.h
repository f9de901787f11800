// The golden profiles' fixture (tests/golden/*.coz, written by hand with known answers): reads
// them from their folder and compares a report's JSON with tests/golden/<name>.json.
// COZ_UPDATE_GOLDEN=1 rewrites the expected files; review the diff.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "output/report_output.h"

namespace coz::analysis::test {

// Reads the golden files from their folder, so paths in the output are just their names.
class Golden : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(getcwd(cwd_, sizeof cwd_), nullptr);
    ASSERT_EQ(chdir(COZ_TEST_GOLDEN), 0) << COZ_TEST_GOLDEN;
  }
  void TearDown() override { ASSERT_EQ(chdir(cwd_), 0); }

  Report analyse_files(const std::vector<std::string>& files, AnalysisOptions options = {}) {
    data_ = ProfileData();
    std::string error;
    for (const std::string& f : files) {
      EXPECT_TRUE(data_.read(f, &error)) << error;
    }
    Report r = analyse(data_, options);
    rank(&r.series, SortOrder::kImpact);
    return r;
  }

  // Compares the report's JSON with `<name>.json`.
  void expect_golden(const Report& r, const std::string& name) {
    std::string json = output::render_json(output::RenderContext{r, data_, "impact"});
    std::string path = name + ".json";
    if (getenv("COZ_UPDATE_GOLDEN")) {
      std::ofstream(path) << json;
    }
    std::ifstream in(path);
    std::stringstream expected;
    expected << in.rdbuf();
    // Report only the first line that differs: the documents are long.
    auto lines = [](const std::string& text) {
      std::vector<std::string> out;
      std::istringstream in(text);
      for (std::string l; std::getline(in, l);) {
        out.push_back(l);
      }
      return out;
    };
    std::vector<std::string> got = lines(json), want = lines(expected.str());
    for (size_t n = 0; n < std::max(got.size(), want.size()); n++) {
      std::string g = n < got.size() ? got[n] : "<end>", w = n < want.size() ? want[n] : "<end>";
      if (g != w) {
        ADD_FAILURE() << path << ":" << n + 1 << ": expected `" << w << "`, got `" << g
                      << "`; COZ_UPDATE_GOLDEN=1 rewrites the file";
        return;
      }
    }
  }

  const Series* find(const Report& r, const std::string& line, const std::string& point) {
    for (const Series& s : r.series) {
      if (s.line.name == line && s.point == point) {
        return &s;
      }
    }
    return nullptr;
  }

  ProfileData data_;

 private:
  char cwd_[PATH_MAX];
};

inline void expect_curve(const Series& s, const std::vector<std::pair<double, double>>& expected) {
  ASSERT_EQ(s.curve.size(), expected.size()) << s.line.name;
  for (size_t i = 0; i < expected.size(); i++) {
    EXPECT_NEAR(s.curve[i].line_speedup, expected[i].first, 1e-9) << s.line.name << " point " << i;
    EXPECT_NEAR(s.curve[i].program_speedup.value, expected[i].second, 1e-4)
        << s.line.name << " point " << i;
  }
}

}  // namespace coz::analysis::test
