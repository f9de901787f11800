// Counting only, for `coz compare` (see count_run.h).
#include "runtime/count_run.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <unordered_map>

#include "base/platform.h"
#include "layout/layout_shift.h"
#include "record/profile_writer.h"
#include "record/vocabulary.h"

namespace coz::count_run {
namespace {

struct Baseline {
  uint64_t throughput = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Whether this process counts: constant-initialised, so the hooks (_exit's, pthread_create's)
// of a process that does not count never touch state(), which allocates on first use.
std::atomic<bool> g_on{false};

struct State {
  std::atomic<bool> finished{false};
  pid_t pid = 0;
  uint64_t start_ns = 0;
  std::string path;
  ProgressPoints* points = nullptr;
  layout::LayoutShift shift;
  std::atomic<uint64_t> threads{0};
  void* held_heap = nullptr;  // the layout's block of the heap, held for the process's life
  void* held_map = nullptr;   // and its reservation ahead of the program's mappings
  // A forked child's counts at its fork, by point: its parent's, taken off what it writes.
  std::unordered_map<const ProgressPoint*, Baseline> inherited;
};

State& state() {
  static auto* s = new State();  // never destroyed: finish() may run after static destructors
  return *s;
}

void before_fork() {
  if (g_on.load()) {
    state().points->before_fork();
  }
}

void after_fork_in_parent() {
  if (g_on.load()) {
    state().points->after_fork();
  }
}

void after_fork_in_child() {
  if (!g_on.load()) {
    return;
  }
  State& s = state();
  s.points->after_fork();
  s.pid = getpid();
  s.start_ns = platform::monotonic_ns();
  s.finished.store(false);
  s.inherited.clear();
  s.points->for_each([&](const ProgressPoint& p) {
    s.inherited[&p] = {p.read(p.throughput()), p.read(p.begin()), p.read(p.end())};
  });
}

}  // namespace

void hold_heap_pad() {
  if (size_t pad = layout::layout_for(early_layout_seed()).heap_pad) {
    state().held_heap = malloc(pad);
  }
}

bool start(const RunConfig& config, ProgressPoints& points) {
  if (config.count_only.empty()) {
    return false;
  }
  State& s = state();
  s.pid = getpid();
  s.start_ns = platform::monotonic_ns();
  s.path = config.count_only;
  s.points = &points;
  s.shift = layout::layout_for(config.layout_seed);
  // The mapping reservation is held for the process's life, as the heap's block.
  if (s.shift.map_pages > 0) {
    size_t bytes = s.shift.map_pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    s.held_map =
        mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  static bool fork_handlers = false;
  if (!fork_handlers) {
    fork_handlers = true;
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  }
  g_on.store(true);
  return true;
}

bool active() {
  return g_on.load(std::memory_order_relaxed);
}

size_t next_thread_pad() {
  if (!g_on.load(std::memory_order_relaxed)) {
    return 0;
  }
  State& s = state();
  return s.shift.thread_pad(s.threads.fetch_add(1, std::memory_order_relaxed) + 1);
}

void finish() {
  if (!g_on.load()) {
    return;
  }
  State& s = state();
  if (getpid() != s.pid || s.finished.exchange(true)) {
    return;
  }
  uint64_t alive = platform::monotonic_ns() - s.start_ns;
  RecordBuilder block;
  block.begin(vocab::kCounts)
      .field(vocab::key::kPid, static_cast<uint64_t>(getpid()))
      .field(vocab::key::kParent, static_cast<uint64_t>(getppid()))
      .field(vocab::key::kDuration, alive)
      .field(vocab::key::kLayout, s.shift.seed)
      .field(vocab::key::kProgram, platform::program_name());
  s.points->for_each([&](const ProgressPoint& p) {
    Baseline was;
    if (auto it = s.inherited.find(&p); it != s.inherited.end()) {
      was = it->second;
    }
    uint64_t visits = p.read(p.throughput()) - was.throughput;
    uint64_t begun = p.read(p.begin()) - was.begin;
    uint64_t ended = p.read(p.end()) - was.end;
    if (p.is_latency) {
      block.begin(vocab::kLatencyPoint)
          .field(vocab::key::kName, p.name)
          .field(vocab::key::kArrivals, begun)
          .field(vocab::key::kDepartures, ended);
    } else if (visits > 0 || !p.has_arrivals) {
      block.begin(vocab::kThroughputPoint)
          .field(vocab::key::kName, p.name)
          .field(vocab::key::kDelta, visits);
    }
  });
  ProfileWriter writer;
  std::string error;
  if (!writer.open(s.path, &error) || !writer.write_block(block, 0, &error)) {
    platform::write_stderr(("coz: error: cannot write the counts of " +
                            std::string(platform::program_name()) + ": " + error + "\n")
                               .c_str());
  }
  writer.close();
}

}  // namespace coz::count_run
