// The library's entry points: constructor, destructor, and the exported progress-point ABI.
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>

#include "base/platform.h"
#include "base/real_functions.h"
#include "hooks/hooks_api.h"
#include "runtime/count_run.h"
#include "runtime/reporter.h"
#include "runtime/runtime.h"

namespace {

// Progress points exist for the whole process, before the runtime starts and after it stops, so
// a site visited early (by another library's constructor) is not cut off for good.
coz::ProgressPoints& process_progress_points() {
  static auto* points = new coz::ProgressPoints();  // never destroyed: counters live forever
  return *points;
}

void coz_stop();

// quick_exit() runs the at_quick_exit handlers and ends the process without destructors. This
// handler, registered before the program's, runs after them and writes the final records, as the
// destructor does after exit().
void stop_at_quick_exit() {
  if (coz::hooks_api::owns_this_process()) {
    coz_stop();
  }
}

// The process's address space (VmSize), in bytes, or 0.
uint64_t address_space() {
  unsigned long pages = 0;
  FILE* f = fopen("/proc/self/statm", "re");
  if (f) {
    if (fscanf(f, "%lu", &pages) != 1) {
      pages = 0;
    }
    fclose(f);
  }
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// The address space of libcoz.so's own mappings, in bytes.
uint64_t own_mappings() {
  const char* self = coz::platform::own_library_file();
  if (!self) {
    return 0;
  }
  FILE* f = fopen("/proc/self/maps", "re");
  if (!f) {
    return 0;
  }
  uint64_t total = 0;
  char line[4096];
  size_t name = strlen(self);
  while (fgets(line, sizeof line, f)) {
    unsigned long from = 0, to = 0;
    size_t n = strcspn(line, "\n");
    if (n >= name && memcmp(line + n - name, self, name) == 0 &&
        sscanf(line, "%lx-%lx", &from, &to) == 2) {
      total += to - from;
    }
  }
  fclose(f);
  return total;
}

// Whether tell_address_space() has anything to say: with --verbose, or under an address-space
// limit. Reading /proc/self/maps takes a tenth of a millisecond, in every process a run starts.
bool address_space_matters(const coz::RunConfig& config) {
  rlimit rl = {};
  return config.verbose || (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY);
}

// What the profiler took of the address space: a warning under a low address-space limit
// (RLIMIT_AS: the program can allocate that much less than without it), else with --verbose.
void tell_address_space(const coz::Reporter& reporter, uint64_t before) {
  uint64_t after = address_space();
  uint64_t taken = (after > before ? after - before : 0) + own_mappings();
  unsigned long long mib = (taken + (1u << 20) - 1) >> 20;
  constexpr uint64_t kArena = 64u << 20;  // glibc's malloc arena of a new thread, reserved whole
  rlimit rl = {};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (taken + kArena) * 16 > rl.rlim_cur) {  // a low limit: more than a sixteenth of it
    char text[400];
    snprintf(text, sizeof text,
             "warning: the profiler takes at least %llu MiB of the %llu MiB address-space limit "
             "(ulimit -v), and its thread's malloc arena up to 64 MiB more: the program can "
             "allocate that much less than without it; raise the limit by as much",
             mib, static_cast<unsigned long long>(rl.rlim_cur >> 20));
    reporter.say(text, true);
  } else {
    reporter.say("the profiler takes " + std::to_string(mib) +
                     " MiB of address space at start-up (not counting its libraries and its "
                     "thread's malloc arena)",
                 false);
  }
}

__attribute__((constructor)) void coz_start() {
  coz::hooks_api::InsideRuntime inside;
  uint64_t began = coz::platform::monotonic_ns();
  coz::count_run::hold_heap_pad();
  coz::real();  // resolve every hook's real function before the program can race us to it
  std::vector<std::string> errors;
  coz::RunConfig config = coz::from_environment(&errors);
  if (!errors.empty()) {
    for (const std::string& e : errors) {
      coz::platform::write_stderr(("coz: error: " + e + "; running without profiling\n").c_str());
    }
    return;
  }
  if (coz::count_run::start(config, process_progress_points())) {
    at_quick_exit(coz::count_run::finish);
    return;  // `coz compare`: counting only, no runtime
  }
  coz::JoinedRun run = coz::join_run(config.follow_children);
  if (run.role == coz::RunRole::kOff) {
    if (!run.why.empty()) {  // said always: this process's work is missing from the profile
      coz::platform::write_stderr(("coz: warning: " + std::string(coz::platform::program_name()) +
                                   " (pid " + std::to_string(getpid()) + "): " + run.why +
                                   "; it runs unprofiled\n")
                                      .c_str());
    }
    return;
  }
  bool tell = address_space_matters(config);
  uint64_t before = tell ? address_space() : 0;
  coz::Reporter reporter(config);
  char wrapped[512];
  if (coz::wrapped_after_runtime(wrapped, sizeof wrapped)) {
    reporter.say(std::string("warning: a library preloaded after the profiler wraps functions "
                             "it hooks, so it sees the profiler's calls (its thread, its thread "
                             "start routine) instead of the program's; list it before the "
                             "profiler in LD_PRELOAD: ") +
                     wrapped,
                 true);
  }
  // Never freed: threads may still be running (and taking samples) while the process exits.
  auto* runtime = new coz::Runtime(std::move(config), process_progress_points(), std::move(run),
                                   nullptr, began);
  if (!runtime->start()) {
    coz::remove_run_file();  // a root that could not start: no program of it will join
  } else {
    at_quick_exit(stop_at_quick_exit);
    if (tell) {
      tell_address_space(reporter, before);
    }
  }
}

__attribute__((destructor)) void coz_stop() {
  coz::hooks_api::InsideRuntime inside;
  coz::count_run::finish();
  if (coz::Runtime* rt = coz::Runtime::active()) {
    rt->shutdown();
  }
}

}  // namespace

// Coz's ABI: the counter for a progress point (1 = throughput, 2 = begin, 3 = end), or null for
// an unknown type. Called once per macro site by coz.h. Type 4 (arrival, this project's
// extension; Coz returns null for it) is called once per site and thread, and returns a counter
// of the calling thread's own.
extern "C" __attribute__((visibility("default"))) void* _coz_get_counter(int type,
                                                                         const char* name) {
  coz::hooks_api::InsideRuntime
      inside;  // the point table's lock is the runtime's, not the program's
  if (type == static_cast<int>(coz::PointKind::kArrival)) {
    if (coz::Runtime* rt = coz::Runtime::active()) {
      return rt->new_arrival_counter(name);
    }
    coz::ArrivalCounter* counter = process_progress_points().new_arrival(name);
    return counter ? &counter->counter : nullptr;  // counted, never amplified (no runtime yet)
  }
  void* counter = process_progress_points().get(type, name);
  if (type == static_cast<int>(coz::PointKind::kBegin) ||
      type == static_cast<int>(coz::PointKind::kEnd)) {
    coz::count_run::latency_point_added();  // `coz compare`: its requests in flight integrated
  }
  return counter;
}

// This project's extension (coz.h): the calling thread's own count of its progress visits, every
// point's, called once per macro site and thread (threads/progress_threads.h); null for a thread
// the runtime does not sample (its visits keep the global delay total).
extern "C" __attribute__((visibility("default"))) void* _coz_thread_visits() {
  coz::ThreadState* state = coz::t_thread_state;
  return state ? &state->visits : nullptr;
}

// Coz's blocking ABI, for programs with their own futex-based locks (COZ_PRE_BLOCK and friends in
// coz.h): pay owed delays before blocking or waking another thread; after blocking, say whether
// another thread woke this one. The same calls as the hooks make (hooks_api.h).
extern "C" __attribute__((visibility("default"))) void _coz_pre_block() {
  coz::hooks_api::before_block();
}

extern "C" __attribute__((visibility("default"))) void _coz_post_block(int woken) {
  coz::hooks_api::after_block(nullptr, woken != 0);  // the waker is unknown: Coz's credit rule
}

extern "C" __attribute__((visibility("default"))) void _coz_catch_up() {
  coz::hooks_api::catch_up();
}
