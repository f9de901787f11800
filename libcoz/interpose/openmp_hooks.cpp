// Hooks for gcc's OpenMP runtime (libgomp): its parallel regions and barriers.
//
// libgomp parks the threads of a team with futex system calls made inside it, which no other
// hook sees: between regions, at the barrier that closes each region and at explicit barriers.
// Its entry points are exported functions the compiler calls, so they can be followed from
// outside:
// - A region (GOMP_parallel, the combined parallel loops and sections) is a meeting. The thread
// that
//   starts it publishes its count as it wakes the team; each thread's part of the region (the
//   starter's too) begins as a wake through the region's key (credited up to what was published
//   there: the team was parked until the starter came) and ends as an arrival at the closing
//   barrier (it pays beyond one sample's worth, keeps the rest, and publishes); the starter,
//   back from the closing barrier, is credited up to the highest count among the arrivals, as
//   at a pthread barrier.
// - An explicit or implicit barrier inside a region (GOMP_barrier, GOMP_loop_end,
//   GOMP_sections_end) is a meeting, as pthread_barrier_wait.
// Not followed: OpenMP locks, `critical`, `ordered`, tasks and LLVM's libomp (its entry points are
// __kmpc_*); the runtime warns at start-up that libgomp's waits are only partly seen.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>

#include "interpose/hook_support.h"
#include "platform.h"

using namespace coz::hooks;

namespace {

// The key under which a team's threads meet at regions' starts and ends, and the key of barriers
// inside regions. One each per process: teams rarely nest, and two that share a key merge their
// counts (the higher wins), which can only over-credit.
const void* region_key() {
  static const char key = 0;
  return &key;
}
const void* barrier_key() {
  static const char key = 0;
  return &key;
}

// libgomp's definition of `name`: the next one after this library's.
template <typename F>
F next_definition(std::atomic<F>& cache, const char* name) {
  F f = cache.load(std::memory_order_acquire);
  if (f == nullptr) {
    f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
    if (f == nullptr) {
      // The program called it, so an OpenMP runtime defines it; only a broken link gets here.
      coz::platform::write_stderr("coz: the program called ");
      coz::platform::write_stderr(name);
      coz::platform::write_stderr(" but no OpenMP runtime defines it\n");
      _exit(127);
    }
    cache.store(f, std::memory_order_release);
  }
  return f;
}
#define COZ_NEXT(name) next_definition(name##_next, #name)

using RegionFn = void (*)(void*);
struct Region {
  RegionFn fn;
  void* data;
};

// One thread's part of a region (see above).
void region_part(void* arg) {
  const Region* region = static_cast<const Region*>(arg);
  if (coz::hooks_api::active()) {
    KeepErrno keep;
    coz::hooks_api::after_block(region_key(), true);
    coz::hooks_api::after_release();
  }
  region->fn(region->data);
  if (coz::hooks_api::active()) {
    KeepErrno keep;
    coz::hooks_api::before_block();
    coz::hooks_api::before_wake(region_key());
  }
}

// Runs a region through libgomp's `start` with each thread's part wrapped.
template <typename Start>
void in_region(RegionFn fn, void* data, Start&& start) {
  if (!coz::hooks_api::active()) {
    start(fn, data);
    return;
  }
  Region region{fn, data};
  coz::hooks_api::before_wake(region_key());  // the starter wakes the team
  start(region_part, &region);
  KeepErrno keep;
  coz::hooks_api::after_block(region_key(), true);  // back from the closing barrier
  coz::hooks_api::after_release();
}

// A barrier inside a region.
template <typename Call>
void barrier(Call&& call) {
  meeting(
      barrier_key(),
      [&] {
        call();
        return 0;
      },
      always);
}

std::atomic<void (*)(RegionFn, void*, unsigned, unsigned)> GOMP_parallel_next;
using LoopStart = void (*)(RegionFn, void*, unsigned, long, long, long, long, unsigned);
std::atomic<LoopStart> GOMP_parallel_loop_static_next;
std::atomic<LoopStart> GOMP_parallel_loop_dynamic_next;
std::atomic<LoopStart> GOMP_parallel_loop_guided_next;
std::atomic<LoopStart> GOMP_parallel_loop_nonmonotonic_dynamic_next;
std::atomic<LoopStart> GOMP_parallel_loop_nonmonotonic_guided_next;
using RuntimeLoopStart = void (*)(RegionFn, void*, unsigned, long, long, long, unsigned);
std::atomic<RuntimeLoopStart> GOMP_parallel_loop_runtime_next;
std::atomic<void (*)(RegionFn, void*, unsigned, unsigned, unsigned)> GOMP_parallel_sections_next;
std::atomic<void (*)()> GOMP_barrier_next;
std::atomic<void (*)()> GOMP_loop_end_next;
std::atomic<void (*)()> GOMP_sections_end_next;

}  // namespace

COZ_EXPORT void GOMP_parallel(RegionFn fn, void* data, unsigned threads, unsigned flags) {
  auto start = COZ_NEXT(GOMP_parallel);
  in_region(fn, data, [&](RegionFn f, void* d) { start(f, d, threads, flags); });
}

#define COZ_PARALLEL_LOOP(name)                                                                    \
  COZ_EXPORT void name(RegionFn fn, void* data, unsigned threads, long first, long end, long step, \
                       long chunk, unsigned flags) {                                               \
    auto start = COZ_NEXT(name);                                                                   \
    in_region(fn, data,                                                                            \
              [&](RegionFn f, void* d) { start(f, d, threads, first, end, step, chunk, flags); }); \
  }
COZ_PARALLEL_LOOP(GOMP_parallel_loop_static)
COZ_PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
COZ_PARALLEL_LOOP(GOMP_parallel_loop_guided)
COZ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
COZ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

COZ_EXPORT void GOMP_parallel_loop_runtime(RegionFn fn, void* data, unsigned threads, long first,
                                           long end, long step, unsigned flags) {
  auto start = COZ_NEXT(GOMP_parallel_loop_runtime);
  in_region(fn, data, [&](RegionFn f, void* d) { start(f, d, threads, first, end, step, flags); });
}

COZ_EXPORT void GOMP_parallel_sections(RegionFn fn, void* data, unsigned threads, unsigned count,
                                       unsigned flags) {
  auto start = COZ_NEXT(GOMP_parallel_sections);
  in_region(fn, data, [&](RegionFn f, void* d) { start(f, d, threads, count, flags); });
}

COZ_EXPORT void GOMP_barrier() {
  barrier(COZ_NEXT(GOMP_barrier));
}
COZ_EXPORT void GOMP_loop_end() {
  barrier(COZ_NEXT(GOMP_loop_end));
}
COZ_EXPORT void GOMP_sections_end() {
  barrier(COZ_NEXT(GOMP_sections_end));
}
