// One experiment across programs that are not parent and child (coz coordinate, coz run
// --coordinator): a front and a back that talk over TCP on localhost, each started by its own
// `coz run`, and one profile.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <thread>

#include "e2e/profile_helpers.h"
#include "test_support.h"

namespace coz {
namespace {

using namespace coz::test;

std::string wait_for_file(const std::string& path) {
  for (int i = 0; i < 1000; i++) {
    std::string text = slurp(path);
    if (!text.empty()) {
      return text.substr(0, text.find('\n'));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

// The line of tiers.c whose comment is /* `marker` */.
std::string tiers_line(const std::string& marker) {
  std::string source = slurp(program_source("tiers.c"));
  size_t at = source.find("/* " + marker + " */");
  return "tiers.c:" + std::to_string(1 + std::count(source.begin(), source.begin() + at, '\n'));
}

struct TwoTiers {
  ProcessResult coordinator, front, back;
};

// A coordinator, then the back, then the front (a request loop of `ms`), each in its own coz
// (the back's with `back_options` too).
TwoTiers run_two_tiers(const TempDir& dir, const std::vector<std::string>& coordinator_options,
                       const std::string& ms = "3000",
                       const std::vector<std::string>& back_options = {}) {
  TwoTiers r;
  std::vector<std::string> coordinate = {COZ_TEST_CLI,  "coordinate",     "--listen",
                                         "127.0.0.1:0", "--port-file",    dir.file("port"),
                                         "-o",          dir.file("p.coz")};
  coordinate.insert(coordinate.end(), coordinator_options.begin(), coordinator_options.end());
  std::thread c([&] { r.coordinator = run_process(coordinate); });
  std::string address = "127.0.0.1:" + wait_for_file(dir.file("port"));
  std::thread b([&] {
    std::vector<std::string> back = {COZ_TEST_CLI, "run", "--coordinator",
                                     address,      "-o",  dir.file("back.coz")};
    back.insert(back.end(), back_options.begin(), back_options.end());
    back.insert(back.end(), {"---", fixture("tiers"), "back", dir.file("bport"), "30"});
    r.back = run_process(back);
  });
  r.front = run_process({COZ_TEST_CLI, "run", "--coordinator", address, "-o", dir.file("front.coz"),
                         "---", fixture("tiers"), "front", dir.file("bport"), "20", ms});
  b.join();
  c.join();
  return r;
}

// Experiments of `selected` in a profile, with the delay they inserted and the samples of it.
struct Inserted {
  size_t experiments = 0, with_delay = 0;
  uint64_t samples = 0;
};
Inserted inserted_in(const std::string& profile, const std::string& selected) {
  Inserted in;
  for (const Record& r : records_of(profile, RecordKind::kExperiment)) {
    if (r.text("selected").find(selected) != std::string::npos) {
      in.experiments++;
      in.with_delay += r.u64("inserted") > 0;
      in.samples += r.u64("selected-samples");
    }
  }
  return in;
}

TEST(AcrossPrograms, TwoProgramsOverTcpMakeOneProfileAndEachPaysTheOthersDelays) {
  for (const char* marker : {"the back's line", "the front's line"}) {
    TempDir dir;
    std::string line = tiers_line(marker);
    TwoTiers r = run_two_tiers(dir, {"--fixed-line", line, "--experiment-length", "100ms"});
    ASSERT_EQ(r.coordinator.status, 0) << r.coordinator.err;
    ASSERT_EQ(r.front.status, 0) << r.front.err;
    ASSERT_EQ(r.back.status, 0) << r.back.err;
    long done = 0, served = 0;
    ASSERT_EQ(sscanf(r.front.out.c_str(), "front done %ld", &done), 1) << r.front.out;
    ASSERT_EQ(sscanf(r.back.out.c_str(), "back served %ld", &served), 1) << r.back.out;
    EXPECT_EQ(done, served);
    EXPECT_GT(done, 0);
    // One profile: both members' processes, on this host, and the front's progress counted.
    std::vector<Record> processes = records_of(dir.file("p.coz"), RecordKind::kProcess);
    ASSERT_EQ(processes.size(), 2u) << slurp(dir.file("p.coz")).substr(0, 2000);
    for (const Record& p : processes) {
      EXPECT_FALSE(p.text("host").empty());
    }
    uint64_t visits = 0;
    for (const Record& p : records_of(dir.file("p.coz"), RecordKind::kThroughputPoint)) {
      visits += p.u64("delta");
    }
    EXPECT_GT(visits, 0u);
    EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kSamples).empty());
    // The line's samples are in one member; the delays they insert reach the other, which has
    // none of them.
    bool in_back = std::string(marker) == "the back's line";
    Inserted own = inserted_in(dir.file(in_back ? "back.coz" : "front.coz"), line);
    Inserted other = inserted_in(dir.file(in_back ? "front.coz" : "back.coz"), line);
    EXPECT_GT(own.samples, 0u) << marker;
    EXPECT_EQ(other.samples, 0u) << marker;
    EXPECT_GT(other.with_delay, 0u) << marker << ": no delay reached the other member";
  }
}

// --end-to-end, given to the coordinator or to one member, is one experiment over the whole run:
// a member that joins after it began takes part from the moment it joins. Whichever of the two
// joins first, the front's requests after that count (most of them: it starts with the back).
TEST(AcrossPrograms, EndToEndIsOneExperimentOverTheWholeRunWhoeverAsksForIt) {
  std::string line = tiers_line("the back's line");
  std::vector<std::string> options = {"--end-to-end", "--fixed-line", line, "--fixed-speedup",
                                      "50"};
  for (bool by_member : {false, true}) {
    TempDir dir;
    TwoTiers r =
        by_member ? run_two_tiers(dir, {}, "1500", options) : run_two_tiers(dir, options, "1500");
    ASSERT_EQ(r.coordinator.status, 0) << r.coordinator.err;
    ASSERT_EQ(r.front.status, 0) << r.front.err;
    ASSERT_EQ(r.back.status, 0) << r.back.err;
    if (by_member) {
      EXPECT_NE(r.coordinator.err.find("--end-to-end, from "), std::string::npos)
          << r.coordinator.err;
    }
    long done = 0;
    ASSERT_EQ(sscanf(r.front.out.c_str(), "front done %ld", &done), 1) << r.front.out;
    // The run's one experiment (given by a member, it may follow an ordinary one that ran before
    // that member joined), and the front's visits in it.
    std::vector<Record> all = read_records(dir.file("p.coz"));
    const Record* whole = nullptr;
    uint64_t visits = 0;
    for (const Record& rec : all) {
      if (rec.kind == RecordKind::kExperiment) {
        EXPECT_EQ(whole, nullptr) << "nothing after the whole run's experiment";
        if (rec.text("selected").find(line) != std::string::npos) {
          whole = &rec;
        }
      } else if (rec.kind == RecordKind::kThroughputPoint && whole) {
        visits += rec.u64("delta");
      }
    }
    ASSERT_NE(whole, nullptr) << slurp(dir.file("p.coz")).substr(0, 3000);
    EXPECT_DOUBLE_EQ(whole->real("speedup"), 0.5);
    EXPECT_GT(whole->u64("inserted"), 0u);
    EXPECT_LE(visits, static_cast<uint64_t>(done)) << "by member: " << by_member;
    EXPECT_GE(visits, static_cast<uint64_t>(done) / 2) << "by member: " << by_member;
    // The front, which has none of the line's samples, paid for the back's.
    EXPECT_GT(inserted_in(dir.file("front.coz"), line).with_delay, 0u);
  }
}

TEST(AcrossPrograms, ALostCoordinatorLeavesTheProgramsRunning) {
  TempDir dir;
  std::thread killer([&] {
    std::string port = wait_for_file(dir.file("port"));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    run_process({"pkill", "-KILL", "-f",
                 "coordinate --listen 127.0.0.1:0 --port-file " + dir.file("port")});
  });
  TwoTiers r = run_two_tiers(dir, {}, "3000");
  killer.join();
  EXPECT_EQ(r.front.status, 0) << r.front.err;
  EXPECT_EQ(r.back.status, 0) << r.back.err;
  EXPECT_EQ(r.front.out.rfind("front done ", 0), 0u) << r.front.out;
  for (const std::string& err : {r.front.err, r.back.err}) {
    size_t first = err.find("coordinator closed the connection");
    EXPECT_NE(first, std::string::npos) << err;
    EXPECT_EQ(err.find("coordinator closed the connection", first + 1), std::string::npos) << err;
  }
  EXPECT_EQ(read_records(dir.file("p.coz")).front().kind, RecordKind::kStartup);
}

TEST(AcrossPrograms, AHostileMessageIsRefusedAndTheRunGoesOn) {
  TempDir dir;
  std::thread hostile([&] {
    int port = atoi(wait_for_file(dir.file("port")).c_str());
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to = {};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
      const char junk[] = "HELLO v=%zz\x01\nbegin exp=1 line=a.c:1\n";
      ssize_t ignored = write(fd, junk, sizeof junk - 1);
      (void)ignored;
      char buf[512];
      ignored = read(fd, buf, sizeof buf);  // the refusal, then the close
    }
    close(fd);
  });
  TwoTiers r = run_two_tiers(dir, {}, "2000");
  hostile.join();
  EXPECT_EQ(r.coordinator.status, 0) << r.coordinator.err;
  EXPECT_NE(r.coordinator.err.find("refused"), std::string::npos) << r.coordinator.err;
  EXPECT_EQ(r.front.status, 0) << r.front.err;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty());
}

TEST(AcrossPrograms, AMemberThatNeverConnectsRunsItsProgramAsNative) {
  TempDir dir;
  int port = 0;
  {  // a port nobody listens on
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in at = {};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof at;
    bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at);
    getsockname(fd, reinterpret_cast<sockaddr*>(&at), &len);
    port = ntohs(at.sin_port);
    close(fd);
  }
  ProcessResult native = run_process({fixture("exit_status"), "3"}, "some input\n");
  ProcessResult r =
      run_process({COZ_TEST_CLI, "run", "--coordinator", "127.0.0.1:" + std::to_string(port), "-o",
                   dir.file("m.coz"), "---", fixture("exit_status"), "3"},
                  "some input\n");
  EXPECT_EQ(r.status, native.status) << r.err;
  EXPECT_EQ(r.out, native.out);
  size_t said = r.err.find("cannot reach the coordinator");
  EXPECT_NE(said, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("cannot reach the coordinator", said + 1), std::string::npos) << r.err;
}

TEST(AcrossPrograms, AMemberKilledLeavesTheRunGoing) {
  // A third member (a back end nobody calls) is killed mid-run; the pair goes on, and the run's
  // profile has experiments after it.
  TempDir dir;
  std::thread third([&] {
    std::string address = "127.0.0.1:" + wait_for_file(dir.file("port"));
    ProcessResult r =
        run_process({COZ_TEST_CLI, "run", "--coordinator", address, "-o", dir.file("third.coz"),
                     "---", fixture("tiers"), "back", dir.file("unused"), "30"});
    EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
  });
  std::thread killer([&] {
    wait_for_file(dir.file("unused"));
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    run_process({"pkill", "-KILL", "-f", "tiers back " + dir.file("unused")});
  });
  TwoTiers r = run_two_tiers(dir, {"--experiment-length", "100ms"}, "3000");
  killer.join();
  third.join();
  EXPECT_EQ(r.coordinator.status, 0) << r.coordinator.err;
  EXPECT_EQ(r.front.status, 0) << r.front.err;
  EXPECT_EQ(r.back.status, 0) << r.back.err;
  EXPECT_NE(r.coordinator.err.find("left"), std::string::npos) << r.coordinator.err;
  std::vector<Record> processes = records_of(dir.file("p.coz"), RecordKind::kProcess);
  EXPECT_EQ(processes.size(), 3u);
  uint64_t last_start = 0;
  for (const Record& e : records_of(dir.file("p.coz"), RecordKind::kExperiment)) {
    last_start = std::max(last_start, e.u64("start"));
  }
  EXPECT_GT(last_start, 2000000000u) << "experiments went on after the kill";
}

TEST(AcrossPrograms, ListeningBeyondLoopbackNeedsASecret) {
  TempDir dir;
  ProcessResult r =
      run_process({COZ_TEST_CLI, "coordinate", "--listen", "0.0.0.0:0", "-o", dir.file("p.coz")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("shared secret"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace coz
