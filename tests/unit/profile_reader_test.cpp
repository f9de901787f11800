// The profile reader's bounds: overlong lines skipped without holding them, too many fields or
// errors, devices, FIFOs and directories refused, reading from an offset (issue 12, finding 2).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "analysis/profile_data.h"
#include "record/profile_format.h"
#include "test_support.h"

namespace coz {
namespace {

TEST(ProfileReader, SkipsAnOverlongLineAndKeepsItsNeighbours) {
  test::TempDir dir;
  std::string path = dir.file("p.coz");
  std::ofstream(path) << "startup\ttime=1\n"
                      << "samples\tlocation=a.c:1\tcount=" << std::string(kMaxRecordBytes + 10, '7')
                      << "\n"
                      << "samples\tlocation=a.c:2\tcount=3\n"
                      << std::string(kMaxRecordBytes * 2, 'x');  // and one at the end, cut short
  std::vector<Record> records;
  std::vector<ParseError> errors;
  std::string error;
  ASSERT_TRUE(read_profile(path, &records, &errors, &error)) << error;
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].line, 3u);
  EXPECT_EQ(records[1].u64("count"), 3u);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].line, 2u);
  EXPECT_EQ(errors[0].message, "record too long (more than 1 MiB); skipped");
  EXPECT_EQ(errors[1].line, 4u);
}

TEST(ProfileReader, BoundsFieldsAndListedErrors) {
  test::TempDir dir;
  std::string path = dir.file("p.coz");
  {
    std::ofstream out(path);
    out << "samples";
    for (size_t i = 0; i <= kMaxRecordFields; i++) {
      out << "\tk" << i << "=1";
    }
    out << "\n";
    for (size_t i = 0; i < kMaxListedErrors + 10; i++) {
      out << "not a record\n";
    }
    out << "samples\tlocation=a.c:2\tcount=3\n";
  }
  std::vector<Record> records;
  std::vector<ParseError> errors;
  ASSERT_TRUE(read_profile(path, &records, &errors));
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(errors.size(), kMaxListedErrors + 1);
  EXPECT_EQ(errors[0].message, "more than 64 fields in one record");
  EXPECT_EQ(errors.back().message, "11 more bad lines up to here, not listed");
  analysis::ProfileData data;
  std::string error;
  ASSERT_TRUE(data.read(path, &error)) << error;
  EXPECT_EQ(data.inputs()[0].errors.size(), kMaxListedErrors);
  EXPECT_EQ(data.inputs()[0].errors_left_out, 11u);
}

TEST(ProfileReader, RefusesWhatIsNotARegularFile) {
  test::TempDir dir;
  ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
  std::vector<Record> records;
  std::vector<ParseError> errors;
  std::string error;
  EXPECT_FALSE(read_profile("/dev/zero", &records, &errors, &error));
  EXPECT_EQ(error,
            "/dev/zero is not a regular file (a device, FIFO or socket); give a profile file that "
            "coz run wrote");
  EXPECT_FALSE(
      read_profile(dir.file("fifo"), &records, &errors, &error));  // and does not wait for a writer
  EXPECT_NE(error.find("is not a regular file"), std::string::npos);
  EXPECT_FALSE(read_profile(dir.path(), &records, &errors, &error));
  EXPECT_EQ(error, dir.path() + " is a directory, not a profile");
}

TEST(ProfileReader, ReadsFromAnOffset) {
  test::TempDir dir;
  std::string path = dir.file("p.coz");
  std::string first = "samples\tlocation=a.c:1\tcount=1\n";
  std::ofstream(path) << first << "samples\tlocation=a.c:2\tcount=2\n";
  std::vector<Record> records;
  std::vector<ParseError> errors;
  ASSERT_TRUE(read_profile(path, &records, &errors, nullptr, first.size()));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].text("location"), "a.c:2");
}

}  // namespace
}  // namespace coz
