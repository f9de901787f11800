// The hooks' process-wide and per-thread state (hook_state.h, quiet_hooks.h, wait_timing.h),
// defined once here, below the runtime.
#include "hooks/hook_state.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "hooks/wait_timing.h"

namespace coz {

__thread __attribute__((tls_model("initial-exec"))) int quiet_hooks::t_inside = 0;
std::atomic<ExperimentState*> quiet_hooks::g_experiment{nullptr};
std::atomic<HandoffTable*> quiet_hooks::g_handoffs{nullptr};
namespace {
wait_timing::WipedAtFork g_not_wiped;  // before start-up, and where the kernel cannot wipe a page
}  // namespace
std::atomic<wait_timing::WipedAtFork*> wait_timing::g_wiped{&g_not_wiped};

void wait_timing::keep_wiped_at_fork() {
#ifdef MADV_WIPEONFORK
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED && madvise(p, page, MADV_WIPEONFORK) == 0) {
    g_wiped.store(new (p) WipedAtFork, std::memory_order_release);  // never unmapped
  } else if (p != MAP_FAILED) {
    munmap(p, page);
  }
#endif
  mark_runtime_here();
}

std::atomic<bool> hooks_api::g_in_tree{false};

}  // namespace coz
