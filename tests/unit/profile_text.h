// Profiles written as text in a test, read as `coz report` reads a file; and normal noise for the
// tests that generate profiles from a known curve.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/profile_data.h"
#include "analysis/statistics.h"

namespace coz::analysis::test {

inline ProfileData from_text(const std::string& text) {
  std::vector<Record> records;
  std::istringstream in(text);
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    Record r;
    std::string message;
    EXPECT_TRUE(parse_record(line, &r, &message)) << line << ": " << message;
    r.line = ++number;
    if (!r.type.empty()) {
      records.push_back(r);
    }
  }
  ProfileData data;
  data.add("test.coz", records);
  return data;
}

// A standard normal draw (Box-Muller).
inline double normal(Rng* rng) {
  double u1 = rng->uniform(), u2 = rng->uniform();
  return std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * M_PI * u2);
}

}  // namespace coz::analysis::test
