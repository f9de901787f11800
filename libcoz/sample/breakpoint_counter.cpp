// Hardware-breakpoint execution counters (see breakpoint_counter.h).
#include "sample/breakpoint_counter.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "base/own_fds.h"

namespace coz {

int open_breakpoint_counter(uintptr_t addr, pid_t tid, std::string* error) {
  perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = HW_BREAKPOINT_X;
  attr.bp_addr = addr;
  attr.bp_len = sizeof(long);  // execute breakpoints take the word size
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd >= 0) {
    fd = own_fds::move_high(fd);
  }
  if (fd < 0) {
    int err = errno;
    *error = std::string("cannot set a hardware breakpoint (") + strerror(err) +
             (err == ENOSPC ? "; the CPU's debug registers are all in use)" : ")");
  }
  return fd;
}

uint64_t read_breakpoint_counter(int fd) {
  uint64_t count = 0;
  return read(fd, &count, sizeof count) == static_cast<ssize_t>(sizeof count) ? count : 0;
}

}  // namespace coz
