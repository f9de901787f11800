// What the runtime's own files share (runtime.cpp, sample_attribution.cpp,
// command_line_points.cpp, thread_life.cpp, shutdown.cpp); nothing outside runtime/ includes it.
#pragma once

#include <signal.h>

#include <cstdint>
#include <string>

#include "platform.h"
#include "real_functions.h"
#include "runtime/thread_registry.h"

namespace coz {

class Runtime;

namespace internal {

// The calling thread's state; initial-exec TLS so the signal handler never allocates.
extern __attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_state;

// Blocks the sample signal in the calling thread for the lifetime of the guard.
class SampleSignalBlock {
 public:
  SampleSignalBlock() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, platform::sample_signal());
    real().pthread_sigmask(SIG_BLOCK, &set, &saved_);
  }
  ~SampleSignalBlock() { real().pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  SampleSignalBlock(const SampleSignalBlock&) = delete;
  SampleSignalBlock& operator=(const SampleSignalBlock&) = delete;

 private:
  sigset_t saved_;
};

// What sample processing carries through a drain.
struct SampleContext {
  Runtime* runtime;
  uint64_t selected;  // samples in the selected line
};

inline constexpr const char* kNoArrivalWarning =
    "load amplification was asked for but the program never reached an arrival point, so no "
    "load was added; add COZ_ARRIVAL (or COZ_BEGIN) where a request arrives";

std::string format_ms(uint64_t ns);

}  // namespace internal
}  // namespace coz
