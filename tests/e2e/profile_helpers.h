// Reading profiles in end-to-end tests: records of one kind, samples per line, and the name the
// profile gives a marked line of a test program.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "record/profile_format.h"
#include "test_support.h"

namespace coz::test {

// Every record of the profile at `path`, which must read without errors.
inline std::vector<Record> read_records(const std::string& path) {
  std::vector<Record> records;
  std::vector<ParseError> errors;
  EXPECT_TRUE(read_profile(path, &records, &errors)) << path;
  EXPECT_TRUE(errors.empty()) << errors.size() << " bad lines, first: " << errors[0].message;
  return records;
}

inline std::vector<Record> records_of(const std::string& path, RecordKind kind) {
  std::vector<Record> out;
  for (Record& r : read_records(path)) {
    if (r.kind == kind) {
      out.push_back(std::move(r));
    }
  }
  return out;
}

inline std::map<std::string, uint64_t> samples_by_line(const std::vector<Record>& records) {
  std::map<std::string, uint64_t> out;
  for (const Record& r : records) {
    if (r.kind == RecordKind::kSamples) {
      out[r.text("location")] += r.u64("count");
    }
  }
  return out;
}

// "<path of source>:<line of its LINE:marker comment>", as samples and experiments name it.
inline std::string line_name(const char* source, const char* marker) {
  return program_source(source) + ":" + std::to_string(marker_line(program_source(source), marker));
}

// A file of tests/golden/.
inline std::string golden(const std::string& name) {
  return std::string(COZ_TEST_GOLDEN) + "/" + name;
}

}  // namespace coz::test
