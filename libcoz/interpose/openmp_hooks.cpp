// Hooks for gcc's OpenMP runtime (libgomp): its parallel regions and barriers.
//
// libgomp parks the threads of a team with futex system calls made inside it, which no other
// hook sees: between regions, at the barrier that closes each region and at explicit barriers.
// Its entry points are exported functions the compiler calls, so they can be followed from
// outside:
// - A region (GOMP_parallel, the combined parallel loops and sections, GOMP_parallel_reductions)
//   is a meeting. The thread that starts it publishes its count as it wakes the team; each other
//   thread's part of the region begins as a wake through the region's key (credited up to what
//   was published there: it was parked until the starter came, and it keeps what it carried in);
//   every part, the starter's too, ends as an arrival at the closing barrier (it pays beyond its
//   carry, keeps the rest, and publishes); the starter, back from the closing barrier,
//   is credited up to the highest count among the arrivals, as at a pthread barrier.
// - A barrier inside a region (GOMP_barrier, GOMP_loop_end, GOMP_sections_end and their
//   _cancel forms) is a meeting, as pthread_barrier_wait.
// Not followed: OpenMP locks, `critical`, `ordered`, `single` with copyprivate, tasks (libgomp
// runs pending tasks inside its barriers, while the thread counts as blocked), the old ABI
// (GOMP_parallel_start/_end, gcc before 4.9) and LLVM's libomp (its entry points are __kmpc_*).
// The runtime says so at start-up when libgomp is loaded.
//
// libgomp's functions are found once, by the thread that starts the first region (a lookup takes
// the loader's lock, which a thread inside a barrier must never wait for), in the objects loaded
// at start-up or, for a libgomp that a library brought in with dlopen (a Python extension's),
// through the calling object's own dependencies.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <type_traits>

#include "base/platform.h"
#include "interpose/hook_support.h"

using namespace coz::hooks;

namespace {

using RegionFn = void (*)(void*);
using LoopStart = void (*)(RegionFn, void*, unsigned, long, long, long, long, unsigned);
using RuntimeLoopStart = void (*)(RegionFn, void*, unsigned, long, long, long, unsigned);

// libgomp's definitions, one per hooked function.
struct Gomp {
  std::atomic<void (*)(RegionFn, void*, unsigned, unsigned)> parallel{nullptr};
  std::atomic<unsigned (*)(RegionFn, void*, unsigned, unsigned)> parallel_reductions{nullptr};
  std::atomic<void (*)(RegionFn, void*, unsigned, unsigned, unsigned)> parallel_sections{nullptr};
  std::atomic<LoopStart> loop_static{nullptr}, loop_dynamic{nullptr}, loop_guided{nullptr},
      loop_nonmonotonic_dynamic{nullptr}, loop_nonmonotonic_guided{nullptr};
  std::atomic<RuntimeLoopStart> loop_runtime{nullptr}, loop_nonmonotonic_runtime{nullptr},
      loop_maybe_nonmonotonic_runtime{nullptr};
  std::atomic<void (*)()> barrier{nullptr}, loop_end{nullptr}, sections_end{nullptr};
  std::atomic<bool (*)()> barrier_cancel{nullptr}, loop_end_cancel{nullptr},
      sections_end_cancel{nullptr};
};
Gomp g_gomp;

// The definition of `name` after this library's: in the objects loaded at start-up, else among
// the dependencies of the object whose code called the hook (`caller`, a return address).
void* definition(const char* name, const void* caller) {
  if (void* f = dlsym(RTLD_NEXT, name)) {
    return f;
  }
  Dl_info info;
  if (caller != nullptr && dladdr(caller, &info) != 0 && info.dli_fname != nullptr) {
    if (void* object = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) {
      void* f = dlsym(object, name);
      dlclose(object);
      if (f != nullptr) {
        return f;
      }
    }
  }
  if (void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
    void* f = dlsym(gomp, name);
    dlclose(gomp);
    return f;
  }
  return nullptr;
}

template <typename F>
void find(std::atomic<F>& slot, const char* name, const void* caller) {
  if (slot.load(std::memory_order_acquire) == nullptr) {
    slot.store(reinterpret_cast<F>(definition(name, caller)), std::memory_order_release);
  }
}

// Finds every function at once (see above), from the first hook a program calls.
void find_all(const void* caller) {
  static std::atomic<bool> found{false};
  if (found.load(std::memory_order_acquire)) {
    return;
  }
  find(g_gomp.parallel, "GOMP_parallel", caller);
  find(g_gomp.parallel_reductions, "GOMP_parallel_reductions", caller);
  find(g_gomp.parallel_sections, "GOMP_parallel_sections", caller);
  find(g_gomp.loop_static, "GOMP_parallel_loop_static", caller);
  find(g_gomp.loop_dynamic, "GOMP_parallel_loop_dynamic", caller);
  find(g_gomp.loop_guided, "GOMP_parallel_loop_guided", caller);
  find(g_gomp.loop_nonmonotonic_dynamic, "GOMP_parallel_loop_nonmonotonic_dynamic", caller);
  find(g_gomp.loop_nonmonotonic_guided, "GOMP_parallel_loop_nonmonotonic_guided", caller);
  find(g_gomp.loop_runtime, "GOMP_parallel_loop_runtime", caller);
  find(g_gomp.loop_nonmonotonic_runtime, "GOMP_parallel_loop_nonmonotonic_runtime", caller);
  find(g_gomp.loop_maybe_nonmonotonic_runtime, "GOMP_parallel_loop_maybe_nonmonotonic_runtime",
       caller);
  find(g_gomp.barrier, "GOMP_barrier", caller);
  find(g_gomp.loop_end, "GOMP_loop_end", caller);
  find(g_gomp.sections_end, "GOMP_sections_end", caller);
  find(g_gomp.barrier_cancel, "GOMP_barrier_cancel", caller);
  find(g_gomp.loop_end_cancel, "GOMP_loop_end_cancel", caller);
  find(g_gomp.sections_end_cancel, "GOMP_sections_end_cancel", caller);
  found.store(true, std::memory_order_release);
}

// The definition in `slot`, found from `caller` if no hook has found them yet. The program called
// it, so an OpenMP runtime defines it; only a broken link ends here without one.
template <typename F>
F real_gomp(std::atomic<F>& slot, const char* name, const void* caller) {
  find_all(caller);
  F f = slot.load(std::memory_order_acquire);
  if (f == nullptr) {
    coz::platform::write_stderr("coz: the program called ");
    coz::platform::write_stderr(name);
    coz::platform::write_stderr(" but no OpenMP runtime it loaded defines it\n");
    _exit(127);
  }
  return f;
}

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

struct Region {
  RegionFn fn;
  void* data;
};

// Set by the thread that starts a region until its own part begins: that part is no wake.
thread_local bool t_starting = false;

// One thread's part of a region (see above).
void region_part(void* arg) {
  const Region* region = static_cast<const Region*>(arg);
  bool starter = t_starting;
  t_starting = false;
  if (!starter && coz::hooks_api::active()) {
    KeepErrno keep;
    coz::hooks_api::after_block(region_key(), true);
    coz::hooks_api::after_release();
  }
  region->fn(region->data);
  if (coz::hooks_api::active()) {
    KeepErrno keep;
    coz::hooks_api::before_meeting();
    coz::hooks_api::before_wake(region_key());
  }
}

// Runs a region through libgomp's `start` with each thread's part wrapped.
template <typename Start>
auto in_region(RegionFn fn, void* data, Start&& start) {
  if (!coz::hooks_api::active()) {
    return start(fn, data);
  }
  Region region{fn, data};
  coz::hooks_api::before_wake(region_key());  // the starter wakes the team
  t_starting = true;
  auto result = start(region_part, &region);
  t_starting = false;
  KeepErrno keep;
  coz::hooks_api::after_block(region_key(), true);  // back from the closing barrier
  coz::hooks_api::after_release();
  return result;
}

// A barrier inside a region: what `call` returns (a _cancel form's bool), or 0.
template <typename Call>
auto barrier(Call&& call) {
  return meeting(barrier_key(), call, always);
}

}  // namespace

// Each hook calls libgomp's function of the same name (a region's through in_region, whose
// `start` returns 0 for a void one).
#define COZ_REAL(slot, name) real_gomp(g_gomp.slot, name, COZ_CALLER)

COZ_EXPORT void GOMP_parallel(RegionFn fn, void* data, unsigned threads, unsigned flags) {
  auto real = COZ_REAL(parallel, "GOMP_parallel");
  in_region(fn, data, [&](RegionFn f, void* d) {
    real(f, d, threads, flags);
    return 0;
  });
}

COZ_EXPORT unsigned GOMP_parallel_reductions(RegionFn fn, void* data, unsigned threads,
                                             unsigned flags) {
  auto real = COZ_REAL(parallel_reductions, "GOMP_parallel_reductions");
  return in_region(fn, data, [&](RegionFn f, void* d) { return real(f, d, threads, flags); });
}

COZ_EXPORT void GOMP_parallel_sections(RegionFn fn, void* data, unsigned threads, unsigned count,
                                       unsigned flags) {
  auto real = COZ_REAL(parallel_sections, "GOMP_parallel_sections");
  in_region(fn, data, [&](RegionFn f, void* d) {
    real(f, d, threads, count, flags);
    return 0;
  });
}

namespace {

// A combined parallel loop, as GOMP_parallel with the loop's bounds (`chunk` < 0: none, the
// runtime schedule's forms).
template <typename Real>
void parallel_loop(Real real, RegionFn fn, void* data, unsigned threads, long first, long end,
                   long step, long chunk, unsigned flags) {
  in_region(fn, data, [&](RegionFn f, void* d) {
    if constexpr (std::is_same_v<Real, LoopStart>) {
      real(f, d, threads, first, end, step, chunk, flags);
    } else {
      real(f, d, threads, first, end, step, flags);
    }
    return 0;
  });
}

}  // namespace

COZ_EXPORT void GOMP_parallel_loop_static(RegionFn fn, void* data, unsigned threads, long first,
                                          long end, long step, long chunk, unsigned flags) {
  parallel_loop(COZ_REAL(loop_static, "GOMP_parallel_loop_static"), fn, data, threads, first, end,
                step, chunk, flags);
}
COZ_EXPORT void GOMP_parallel_loop_dynamic(RegionFn fn, void* data, unsigned threads, long first,
                                           long end, long step, long chunk, unsigned flags) {
  parallel_loop(COZ_REAL(loop_dynamic, "GOMP_parallel_loop_dynamic"), fn, data, threads, first, end,
                step, chunk, flags);
}
COZ_EXPORT void GOMP_parallel_loop_guided(RegionFn fn, void* data, unsigned threads, long first,
                                          long end, long step, long chunk, unsigned flags) {
  parallel_loop(COZ_REAL(loop_guided, "GOMP_parallel_loop_guided"), fn, data, threads, first, end,
                step, chunk, flags);
}
COZ_EXPORT void GOMP_parallel_loop_nonmonotonic_dynamic(RegionFn fn, void* data, unsigned threads,
                                                        long first, long end, long step, long chunk,
                                                        unsigned flags) {
  parallel_loop(COZ_REAL(loop_nonmonotonic_dynamic, "GOMP_parallel_loop_nonmonotonic_dynamic"), fn,
                data, threads, first, end, step, chunk, flags);
}
COZ_EXPORT void GOMP_parallel_loop_nonmonotonic_guided(RegionFn fn, void* data, unsigned threads,
                                                       long first, long end, long step, long chunk,
                                                       unsigned flags) {
  parallel_loop(COZ_REAL(loop_nonmonotonic_guided, "GOMP_parallel_loop_nonmonotonic_guided"), fn,
                data, threads, first, end, step, chunk, flags);
}
COZ_EXPORT void GOMP_parallel_loop_runtime(RegionFn fn, void* data, unsigned threads, long first,
                                           long end, long step, unsigned flags) {
  parallel_loop(COZ_REAL(loop_runtime, "GOMP_parallel_loop_runtime"), fn, data, threads, first, end,
                step, -1, flags);
}
COZ_EXPORT void GOMP_parallel_loop_nonmonotonic_runtime(RegionFn fn, void* data, unsigned threads,
                                                        long first, long end, long step,
                                                        unsigned flags) {
  parallel_loop(COZ_REAL(loop_nonmonotonic_runtime, "GOMP_parallel_loop_nonmonotonic_runtime"), fn,
                data, threads, first, end, step, -1, flags);
}
COZ_EXPORT void GOMP_parallel_loop_maybe_nonmonotonic_runtime(RegionFn fn, void* data,
                                                              unsigned threads, long first,
                                                              long end, long step, unsigned flags) {
  parallel_loop(
      COZ_REAL(loop_maybe_nonmonotonic_runtime, "GOMP_parallel_loop_maybe_nonmonotonic_runtime"),
      fn, data, threads, first, end, step, -1, flags);
}

COZ_EXPORT void GOMP_barrier() {
  auto real = COZ_REAL(barrier, "GOMP_barrier");
  barrier([&] {
    real();
    return 0;
  });
}
COZ_EXPORT void GOMP_loop_end() {
  auto real = COZ_REAL(loop_end, "GOMP_loop_end");
  barrier([&] {
    real();
    return 0;
  });
}
COZ_EXPORT void GOMP_sections_end() {
  auto real = COZ_REAL(sections_end, "GOMP_sections_end");
  barrier([&] {
    real();
    return 0;
  });
}
// The _cancel forms return whether the region was cancelled.
COZ_EXPORT bool GOMP_barrier_cancel() {
  auto real = COZ_REAL(barrier_cancel, "GOMP_barrier_cancel");
  return barrier([&] { return real() ? 1 : 0; }) != 0;
}
COZ_EXPORT bool GOMP_loop_end_cancel() {
  auto real = COZ_REAL(loop_end_cancel, "GOMP_loop_end_cancel");
  return barrier([&] { return real() ? 1 : 0; }) != 0;
}
COZ_EXPORT bool GOMP_sections_end_cancel() {
  auto real = COZ_REAL(sections_end_cancel, "GOMP_sections_end_cancel");
  return barrier([&] { return real() ? 1 : 0; }) != 0;
}
