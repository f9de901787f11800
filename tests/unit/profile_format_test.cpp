// Profile format: records written by the builder read back the same; Coz 0.2's own output reads;
// malformed and truncated lines are reported with their line number and skipped.
#include "record/profile_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "record/profile_writer.h"
#include "test_support.h"

namespace coz {
namespace {

TEST(RecordBuilder, RoundTripsTypesAndEscapes) {
  RecordBuilder b;
  b.begin("experiment")
      .field("selected", "/src/a b.c:12")
      .field("speedup", 0.25, 2)
      .field("duration", uint64_t{500000000});
  b.begin("throughput-point").field("name", "tab\there\\and\nnewline").field("delta", uint64_t{7});
  std::string text = b.text();
  size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos);

  Record r;
  std::string message;
  ASSERT_TRUE(parse_record(text.substr(0, newline), &r, &message)) << message;
  EXPECT_EQ(r.kind, RecordKind::kExperiment);
  EXPECT_EQ(r.text("selected"), "/src/a b.c:12");
  EXPECT_DOUBLE_EQ(r.real("speedup"), 0.25);
  EXPECT_EQ(r.u64("duration"), 500000000u);
  EXPECT_EQ(r.u64("missing", 42), 42u);

  ASSERT_TRUE(parse_record(text.substr(newline + 1), &r, &message)) << message;
  EXPECT_EQ(r.kind, RecordKind::kThroughputPoint);
  EXPECT_EQ(r.text("name"), "tab\there\\and\nnewline");
}

TEST(ParseRecord, ReadsCozOutputVerbatim) {
  // Lines as Debian's coz-profiler 0.2.2 writes them.
  const char* lines[] = {
      "startup\ttime=1795340017790113486",
      "experiment\tselected=/tmp/cz/t.c:4\tspeedup=0.00\tduration=500100670\tselected-samples=188",
      "throughput-point\tname=t.c:6\tdelta=189",
      "latency-point\tname=req\tarrivals=189\tdepartures=189\tdifference=15025682106450173361",
      "runtime\ttime=530616276",
      "samples\tlocation=/tmp/cz/t.c:4\tcount=195",
  };
  RecordKind kinds[] = {RecordKind::kStartup,         RecordKind::kExperiment,
                        RecordKind::kThroughputPoint, RecordKind::kLatencyPoint,
                        RecordKind::kRuntime,         RecordKind::kSamples};
  for (size_t i = 0; i < 6; i++) {
    Record r;
    std::string message;
    ASSERT_TRUE(parse_record(lines[i], &r, &message)) << lines[i];
    EXPECT_EQ(r.kind, kinds[i]);
  }
  Record r;
  std::string message;
  ASSERT_TRUE(parse_record(lines[3], &r, &message));
  EXPECT_EQ(r.u64("difference"), 15025682106450173361ull);
}

TEST(ParseRecord, RejectsMalformedLines) {
  Record r;
  std::string message;
  EXPECT_FALSE(parse_record("samples\tlocation", &r, &message));
  EXPECT_FALSE(message.empty());
  EXPECT_FALSE(parse_record("key=value\tother=1", &r, &message));
  EXPECT_FALSE(parse_record("samples\t=3", &r, &message));
  EXPECT_TRUE(parse_record("future-record\tx=1", &r, &message));
  EXPECT_EQ(r.kind, RecordKind::kUnknown);
  EXPECT_EQ(r.u64("x"), 1u);
}

TEST(ReadProfile, ReportsBadLinesAndKeepsTheRest) {
  test::TempDir dir;
  std::string path = dir.file("p.coz");
  {
    std::ofstream out(path);
    out << "startup\ttime=1\n"
        << "garbage line\n"
        << "\n"
        << "samples\tlocation=a.c:1\tcount=3\n"
        << "samples\tlocation=a.c:2\tcou";  // cut short by a crash
  }
  std::vector<Record> records;
  std::vector<ParseError> errors;
  ASSERT_TRUE(read_profile(path, &records, &errors));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].u64("count"), 3u);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].line, 2u);
  EXPECT_EQ(errors[1].line, 5u);
  EXPECT_EQ(errors[1].file, path);
  EXPECT_FALSE(read_profile(dir.file("missing.coz"), &records, &errors));
}

TEST(ProfileWriter, AppendsWholeBlocksFromManyWriters) {
  test::TempDir dir;
  std::string path = dir.file("p.coz");
  constexpr int kWriters = 4, kBlocks = 200;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; w++) {
    threads.emplace_back([&, w] {
      ProfileWriter writer;  // each with its own descriptor, as separate processes would have
      std::string error;
      ASSERT_TRUE(writer.open(path, &error)) << error;
      for (int i = 0; i < kBlocks; i++) {
        RecordBuilder b;
        b.begin("experiment")
            .field("writer", static_cast<uint64_t>(w))
            .field("pad", std::string(300, 'x'));
        b.begin("throughput-point").field("writer", static_cast<uint64_t>(w));
        ASSERT_TRUE(writer.write_block(b));
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  std::vector<Record> records;
  std::vector<ParseError> errors;
  ASSERT_TRUE(read_profile(path, &records, &errors));
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(records.size(), static_cast<size_t>(2 * kWriters * kBlocks));
  for (size_t i = 0; i < records.size(); i += 2) {  // every experiment is followed by its point
    EXPECT_EQ(records[i].kind, RecordKind::kExperiment);
    EXPECT_EQ(records[i + 1].kind, RecordKind::kThroughputPoint);
    EXPECT_EQ(records[i].text("writer"), records[i + 1].text("writer"));
  }
}

TEST(ProfileWriter, OpenFailureNamesThePath) {
  ProfileWriter writer;
  std::string error;
  EXPECT_FALSE(writer.open("/nonexistent-dir/p.coz", &error));
  EXPECT_NE(error.find("/nonexistent-dir/p.coz"), std::string::npos);
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
}

TEST(ParseRecord, ReadsCozJsonLines) {
  Record r;
  std::string message;
  ASSERT_TRUE(parse_record(
      R"({"type":"experiment", "selected":"/a b.c:3", "speedup":0.25, "duration":500000000})", &r,
      &message))
      << message;
  EXPECT_EQ(r.kind, RecordKind::kExperiment);
  EXPECT_EQ(r.text("selected"), "/a b.c:3");
  EXPECT_DOUBLE_EQ(r.real("speedup"), 0.25);
  EXPECT_EQ(r.u64("duration"), 500000000u);
  ASSERT_TRUE(parse_record(
      R"({"type":"throughput-point","name":"q\"uote\\d \u00e9","delta":7,"x":null,"ok":true})", &r,
      &message))
      << message;
  EXPECT_EQ(r.text("name"), "q\"uote\\d \xc3\xa9");
  EXPECT_EQ(r.text("ok"), "true");
  ASSERT_TRUE(parse_record(R"({"type":"progress-point","name":"old","delta":2})", &r, &message))
      << message;
  EXPECT_EQ(r.kind, RecordKind::kThroughputPoint);  // Coz 0.1's name for it

  // A surrogate pair is one code point, written as 4-byte UTF-8.
  ASSERT_TRUE(parse_record(R"({"type":"samples","location":"\ud83d\ude00.c:1"})", &r, &message))
      << message;
  EXPECT_EQ(r.text("location"), "\xf0\x9f\x98\x80.c:1");
  EXPECT_FALSE(
      parse_record(R"({"type":"samples","location":"\ud83d.c:1"})", &r, &message));  // half a pair
  EXPECT_FALSE(parse_record(R"({"type":"samples","location":"\uZZZZ"})", &r, &message));
  for (const char* number : {"nan", "inf", "-inf", "0x10", "1e", "01", ".5", "+1"}) {
    std::string line = std::string(R"({"type":"samples","count":)") + number + "}";
    EXPECT_FALSE(parse_record(line, &r, &message)) << number;
  }
  EXPECT_TRUE(parse_record(R"({"type":"samples","count":-1.5e+3})", &r, &message)) << message;

  EXPECT_FALSE(parse_record(R"({"selected":"a.c:1"})", &r, &message));
  EXPECT_NE(message.find("no \"type\""), std::string::npos) << message;
  EXPECT_FALSE(parse_record(R"({"type":"experiment","speedup":0.2)", &r, &message));
  EXPECT_FALSE(parse_record(R"({"type":"experiment","speedup":[1]})", &r, &message));
  EXPECT_FALSE(parse_record(R"({"type":"experiment"} trailing)", &r, &message));
}

// Coz's JSON-lines profiles spell keys with underscores (`selected_samples`): each reads as the
// key this profile uses, so every reader of `selected-samples` (phase correction) sees it.
TEST(Vocabulary, OtherWritersSpellingsReadAsOurs) {
  EXPECT_EQ(vocab::canonical_key("selected_samples"), vocab::key::kSelectedSamples);
  EXPECT_EQ(vocab::canonical_key("in_flight_ns"), vocab::key::kInFlightNs);
  EXPECT_EQ(vocab::canonical_key("selected-samples"), vocab::key::kSelectedSamples);
  EXPECT_EQ(vocab::canonical_key("not_ours"), "not_ours");  // unknown keys pass through
  EXPECT_EQ(vocab::canonical_type("throughput_point"), vocab::kThroughputPoint);
  EXPECT_EQ(vocab::canonical_type("progress-point"), vocab::kThroughputPoint);

  Record r;
  std::string message;
  ASSERT_TRUE(parse_record(
      R"({"type":"experiment","selected":"a.c:3","speedup":0.5,"duration":9,"selected_samples":12})",
      &r, &message))
      << message;
  EXPECT_EQ(r.u64(vocab::key::kSelectedSamples), 12u);
  ASSERT_TRUE(parse_record(R"({"type":"latency_point","name":"q","in_flight_ns":5})", &r, &message))
      << message;
  EXPECT_EQ(r.kind, RecordKind::kLatencyPoint);
  EXPECT_EQ(r.u64(vocab::key::kInFlightNs), 5u);
  ASSERT_TRUE(parse_record("experiment\tselected=a.c:3\tselected_samples=4", &r, &message))
      << message;
  EXPECT_EQ(r.u64(vocab::key::kSelectedSamples), 4u);
}

}  // namespace
}  // namespace coz
