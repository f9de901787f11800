// Counting only, for `coz compare` (see count_run.h).
#include "runtime/count_run.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <unordered_map>

#include "base/platform.h"
#include "base/real_functions.h"
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

// A latency point's requests in flight, integrated over time (request-nanoseconds) by the
// ticker thread; with the point's departures that is its mean latency (Little's law).
struct InFlight {
  std::atomic<const ProgressPoint*> point{nullptr};
  std::atomic<int64_t> ns{0};
};
constexpr size_t kInFlightSlots = SharedPoints::kSlots;

struct State {
  std::atomic<bool> finished{false};
  pid_t pid = 0;
  uint64_t start_ns = 0;
  std::string path;
  ProgressPoints* points = nullptr;
  layout::LayoutShift shift;
  std::atomic<uint64_t> threads{0};
  void* held_heap = nullptr;         // the layout's block of the heap, held for the process's life
  void* held_map = nullptr;          // and its reservation ahead of the program's mappings
  std::atomic<bool> ticking{false};  // the ticker runs in this process
  InFlight in_flight[kInFlightSlots];
  // A forked child's counts at its fork, by point: its parent's, taken off what it writes.
  std::unordered_map<const ProgressPoint*, Baseline> inherited;
};

State& state() {
  static auto* s = new State();  // never destroyed: finish() may run after static destructors
  return *s;
}

// The slot of `point` (claimed by the ticker, the only writer), or nullptr when all are taken.
InFlight* slot_of(State& s, const ProgressPoint* point, bool claim) {
  for (InFlight& slot : s.in_flight) {
    const ProgressPoint* at = slot.point.load(std::memory_order_acquire);
    if (at == point) {
      return &slot;
    }
    if (at == nullptr) {
      if (!claim) {
        return nullptr;
      }
      slot.point.store(point, std::memory_order_release);
      return &slot;
    }
  }
  return nullptr;
}

// Every millisecond, each latency point's requests in flight (begun less ended, in this process)
// times the time since the last look: an unbiased reading of the time-average, whatever the
// requests' lengths, at a wake-up a millisecond.
void* ticker_main(void*) {
  State& s = state();
  uint64_t last = platform::monotonic_ns();
  for (;;) {
    timespec one = {0, 1000000};
    real().nanosleep(&one, nullptr);
    uint64_t now = platform::monotonic_ns();
    int64_t dt = static_cast<int64_t>(now - last);
    last = now;
    for (ProgressPoint* p = s.points->latency_points(); p;
         p = p->next_latency.load(std::memory_order_acquire)) {
      uint64_t begun = 0, ended = 0;
      p->read_latency(&begun, &ended);
      if (InFlight* slot = slot_of(s, p, true)) {
        int64_t flying = static_cast<int64_t>(begun) - static_cast<int64_t>(ended);
        slot->ns.fetch_add(flying * dt, std::memory_order_relaxed);
      }
    }
  }
  return nullptr;
}

void start_ticker(State& s) {
  if (s.ticking.exchange(true)) {
    return;
  }
  // The program's signals are not the ticker's to take.
  sigset_t all, saved;
  sigfillset(&all);
  real().pthread_sigmask(SIG_SETMASK, &all, &saved);
  pthread_attr_t attr;
  bool small = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 64 << 10) == 0;
  pthread_t ticker;
  if (real().pthread_create(&ticker, small ? &attr : nullptr, ticker_main, nullptr) == 0) {
    pthread_detach(ticker);
  } else {
    s.ticking.store(false);
  }
  pthread_attr_destroy(&attr);
  real().pthread_sigmask(SIG_SETMASK, &saved, nullptr);
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
  // The parent's ticker stayed behind: the child integrates its own requests from here on.
  for (InFlight& slot : s.in_flight) {
    slot.ns.store(0, std::memory_order_relaxed);
  }
  s.ticking.store(false);
  if (s.points->any_latency()) {
    start_ticker(s);
  }
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

void latency_point_added() {
  if (g_on.load(std::memory_order_relaxed)) {
    start_ticker(state());
  }
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
      const InFlight* slot = slot_of(s, &p, false);
      int64_t flying = slot ? slot->ns.load(std::memory_order_relaxed) : 0;
      block.begin(vocab::kLatencyPoint)
          .field(vocab::key::kName, p.name)
          .field(vocab::key::kArrivals, begun)
          .field(vocab::key::kDepartures, ended)
          .field(vocab::key::kInFlightNs, static_cast<uint64_t>(flying > 0 ? flying : 0));
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
