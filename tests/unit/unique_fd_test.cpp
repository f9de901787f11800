// UniqueFd: closes what it holds when it lets go of it, and only then.
#include "base/unique_fd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace coz {
namespace {

bool is_open(int fd) {
  return fcntl(fd, F_GETFD) != -1;
}

TEST(UniqueFd, ResetClosesTheOldDescriptorAndHoldsTheNew) {
  int a = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int b = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  {
    UniqueFd fd(a);
    fd.reset(b);
    EXPECT_FALSE(is_open(a));
    EXPECT_EQ(fd.get(), b);
  }
  EXPECT_FALSE(is_open(b)) << "closed when destroyed";
}

TEST(UniqueFd, ResetToTheDescriptorHeldKeepsItOpen) {
  int a = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(a, 0);
  UniqueFd fd(a);
  fd.reset(a);
  EXPECT_TRUE(is_open(a));
  EXPECT_EQ(fd.get(), a);
  fd.reset();
  EXPECT_FALSE(is_open(a));
  EXPECT_FALSE(fd.valid());
}

TEST(UniqueFd, ReleaseGivesItUpOpen) {
  int a = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(a, 0);
  {
    UniqueFd fd(a);
    EXPECT_EQ(fd.release(), a);
  }
  EXPECT_TRUE(is_open(a));
  close(a);
}

}  // namespace
}  // namespace coz
