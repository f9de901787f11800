// Breakpoint progress points (dissertation section 5.2.3.2): a perf_event hardware breakpoint on
// one instruction, counting every execution in one thread. Counting only, no samples or signals.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace coz {

// Opens a counter of executions of `addr` in thread `tid` (of this process). The descriptor,
// or -1 and `error`.
int open_breakpoint_counter(uintptr_t addr, pid_t tid, std::string* error);
// The executions counted so far (0 if the read fails).
uint64_t read_breakpoint_counter(int fd);

}  // namespace coz
