// A move-only owner of one plain file descriptor: closes it when destroyed, unless released.
// For descriptors that are not the profiler's registered own: a file the CLI reads, a perf_event
// descriptor until it is set up. A descriptor the profiler keeps for the program's whole run is
// adopted by own_fds.h instead, which guards its slot (and so cannot move). Not for signal
// handlers (close() is, but nothing here needs it there).
#pragma once

#include <unistd.h>

namespace coz {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset(other.release());
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives the descriptor up without closing it.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held, if any, and holds `fd` (resetting to the descriptor held keeps
  // it open).
  void reset(int fd = -1) {
    if (fd_ >= 0 && fd_ != fd) {
      close(fd_);
    }
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace coz
