// ProfileWriter and the table of the profiler's own descriptors: blocks are written whole or not
// at all, a full disk loses nothing that later space can save, and a descriptor the program
// replaced is never written into.
#include "record/profile_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "base/own_fds.h"
#include "test_support.h"

namespace coz {
namespace {

using test::slurp;
using test::TempDir;

// A block of one record whose text is exactly `bytes` long, newline included.
RecordBuilder block_of(size_t bytes, char fill) {
  RecordBuilder b;
  b.begin("experiment")
      .field("pad", std::string(bytes - std::string("experiment\tpad=\n").size(), fill));
  return b;
}

// The descriptor that names `path`, found through /proc/self/fd.
int fd_naming(const std::string& path) {
  int found = -1;
  DIR* dir = opendir("/proc/self/fd");
  while (dirent* e = dir ? readdir(dir) : nullptr) {
    char target[4096];
    std::string link = std::string("/proc/self/fd/") + e->d_name;
    ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    if (n > 0 && std::string(target, static_cast<size_t>(n)) == path) {
      found = atoi(e->d_name);
    }
  }
  if (dir) {
    closedir(dir);
  }
  return found;
}

TEST(ProfileWriter, BlocksThatDoNotFitWaitAndAreWrittenWhenSpaceReturns) {
  TempDir dir;
  std::string path = dir.file("p.coz");
  // In a child: a file size limit stands in for a disk that fills (the writer never writes past
  // it: that would also raise SIGXFSZ).
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    rlimit small = {2500, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &small);
    ProfileWriter writer;
    std::string error;
    if (!writer.open(path, &error)) {
      _exit(10);
    }
    bool ok1 = writer.write_block(block_of(1000, 'a'), 1, &error);
    bool ok2 = writer.write_block(block_of(1000, 'b'), 1, &error);
    bool ok3 = writer.write_block(block_of(1000, 'c'), 1, &error);  // crosses the limit
    if (!ok1 || !ok2 || ok3 || error.empty()) {
      _exit(11);
    }
    if (slurp(path).size() != 2000 || writer.unwritten_experiments() != 1) {
      _exit(12);  // nothing of the block that does not fit, and it counts as unwritten
    }
    bool ok4 = writer.write_block(block_of(1000, 'd'), 1, &error);  // still no space
    if (ok4 || writer.unwritten_experiments() != 2 || slurp(path).size() != 2000) {
      _exit(13);
    }
    rlimit more = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &more);
    bool ok5 = writer.write_block(block_of(1000, 'e'), 1, &error);  // space again: all of it
    if (!ok5 || writer.unwritten_experiments() != 0) {
      _exit(14);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::string text = slurp(path);
  ASSERT_EQ(text.size(), 5000u);
  // Whole blocks, in the order they were given.
  std::string order;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    ASSERT_EQ(line.size(), 999u);
    order += line.back();
  }
  EXPECT_EQ(order, "abcde");
}

// The soft descriptor limit raised to the hard one while it lives. The profiler's descriptors
// may sit above the soft limit (a user's usual 1024), where a program can name them (dup2 onto
// one) only after raising its limit, as a program that wants such a number does.
class SoftLimitRaised {
 public:
  SoftLimitRaised() {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit raised = {saved_.rlim_max, saved_.rlim_max};
    setrlimit(RLIMIT_NOFILE, &raised);
  }
  ~SoftLimitRaised() { setrlimit(RLIMIT_NOFILE, &saved_); }
  SoftLimitRaised(const SoftLimitRaised&) = delete;
  SoftLimitRaised& operator=(const SoftLimitRaised&) = delete;

 private:
  rlimit saved_ = {};
};

TEST(ProfileWriter, NeverWritesIntoADescriptorThatIsNoLongerItsFile) {
  TempDir dir;
  std::string path = dir.file("p.coz"), other = dir.file("program.txt");
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(path, &error)) << error;
  int ours = fd_naming(path);
  ASSERT_GT(ours, 2);
  EXPECT_TRUE(own_fds::is_ours(ours));
  // The program replaces it with a raw syscall, which no hook sees.
  SoftLimitRaised raised;
  int mine = ::open(other.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(mine, 0);
  ASSERT_EQ(syscall(SYS_dup3, mine, ours, 0), ours);
  ASSERT_TRUE(writer.write_block(block_of(100, 'x'), 1, &error)) << error;
  EXPECT_EQ(slurp(other), "");
  EXPECT_EQ(slurp(path).size(), 100u);
  writer.close();
  ::close(mine);
  syscall(SYS_close, ours);
}

TEST(OwnFds, MovedHighAndKeptOpenByCloseRange) {
  TempDir dir;
  std::string path = dir.file("p.coz");
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(path, &error)) << error;
  int ours = fd_naming(path);
  rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  // Above the program's usual range: under a limit of thousands from 1024, else its top half.
  EXPECT_GE(static_cast<rlim_t>(ours), std::min<rlim_t>(rl.rlim_cur / 2, 1024));
  int a = ::open("/dev/null", O_RDONLY), b = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ASSERT_EQ(own_fds::close_range_except_ours(static_cast<unsigned>(a), ~0U, 0), 0);
  EXPECT_EQ(fcntl(a, F_GETFD), -1);
  EXPECT_EQ(fcntl(b, F_GETFD), -1);
  EXPECT_GE(fcntl(ours, F_GETFD), 0) << "the profiler's descriptor stays open";
  ASSERT_TRUE(writer.write_block(block_of(100, 'y'), 1, &error)) << error;
  EXPECT_EQ(slurp(path).size(), 100u);
}

// Under a limit of thousands the profiler's descriptors go from 1024 up (a short descriptor table
// for every fork to copy) while they hold under a quarter of the program's numbers; the rest go
// above the limit, or into the top quarter of the range when the hard limit leaves no room.
TEST(OwnFds, UnderAHighLimitTakesAQuarterOfTheNumbersFrom1024) {
  rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  if (saved.rlim_max < 8192) {
    GTEST_SKIP() << "hard descriptor limit " << saved.rlim_max << " is under 8192";
  }
  rlimit lower = {8192, saved.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lower), 0);
  constexpr int kMany = 2100;  // past a quarter of 8192, with the descriptors already registered
  auto slots = std::make_unique<std::atomic<int>[]>(kMany);
  int first = -1, last = -1, adopted = 0;
  for (; adopted < kMany; adopted++) {
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      ADD_FAILURE() << "open: " << strerror(errno);
      break;
    }
    slots[adopted].store(own_fds::move_high(fd));
    own_fds::adopt(&slots[adopted]);
    (adopted == 0 ? first : last) = slots[adopted].load();
  }
  for (int i = 0; i < adopted; i++) {  // before any assertion: the table points into `slots`
    own_fds::release(&slots[i]);
  }
  EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_GE(first, 1024);
  EXPECT_LT(first, 2048);
  EXPECT_GE(last, 8192 - 8192 / 4) << "past the quarter: above the limit or in its top quarter";
}

TEST(OwnFds, MakeRoomMovesTheDescriptorAndUpdatesItsSlot) {
  TempDir dir;
  std::string path = dir.file("p.coz"), other = dir.file("program.txt");
  ProfileWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(path, &error)) << error;
  int ours = fd_naming(path);
  int mine = ::open(other.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  SoftLimitRaised raised;
  {
    own_fds::Lock lock;
    ASSERT_TRUE(own_fds::make_room(ours));
    ASSERT_EQ(dup2(mine, ours), ours);  // what the dup2 hook does next
  }
  EXPECT_FALSE(own_fds::is_ours(ours));
  int moved = fd_naming(path);
  EXPECT_NE(moved, ours);
  EXPECT_TRUE(own_fds::is_ours(moved));
  ASSERT_TRUE(writer.write_block(block_of(100, 'z'), 1, &error)) << error;
  EXPECT_EQ(slurp(other), "");
  EXPECT_EQ(slurp(path).size(), 100u);
  ::close(mine);
  ::close(ours);
}

}  // namespace
}  // namespace coz
