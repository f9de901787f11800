// The delay protocol's trace (see ledger_trace.h).
#include "delays/ledger_trace.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/platform.h"

namespace coz::ledger_trace {

std::atomic<Entry*> g_entries{nullptr};

namespace {

constexpr uint64_t kCapacity = 4u << 20;  // 4M entries, 224 MiB of address space, touched as used
std::atomic<uint64_t> g_next{0};
char g_path[4096];
pid_t g_owner = 0;

const char* name(Event e) {
  switch (e) {
    case Event::kSettle:
      return "settle";
    case Event::kPause:
      return "pause";
    case Event::kBlock:
      return "block";
    case Event::kPublish:
      return "publish";
    case Event::kCredit:
      return "credit";
    case Event::kWake:
      return "wake";
    case Event::kBegin:
      return "begin";
    case Event::kEnd:
      return "end";
  }
  return "?";
}

}  // namespace

void append(const void* thread, Event event, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  Entry* entries = g_entries.load(std::memory_order_relaxed);
  uint64_t i = g_next.fetch_add(1, std::memory_order_relaxed);
  if (entries == nullptr || i >= kCapacity) {
    return;
  }
  entries[i] = Entry{platform::monotonic_ns(), thread, event, a, b, c, d};
}

bool open(const char* path) {
  if (std::strlen(path) >= sizeof g_path) {
    return false;
  }
  void* m = mmap(nullptr, kCapacity * sizeof(Entry), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    return false;
  }
  std::strcpy(g_path, path);
  g_owner = getpid();
  g_entries.store(static_cast<Entry*>(m), std::memory_order_release);
  return true;
}

void write_out() {
  Entry* entries = g_entries.exchange(nullptr);
  if (entries == nullptr || getpid() != g_owner) {
    return;  // off, or a forked child's copy
  }
  uint64_t n = g_next.load();
  uint64_t kept = n < kCapacity ? n : kCapacity;
  FILE* f = std::fopen(g_path, "w");
  if (f == nullptr) {
    std::fprintf(stderr,
                 "coz: cannot write the ledger trace to %s (%s); set COZ_LEDGER_TRACE to a "
                 "writable file\n",
                 g_path, std::strerror(errno));
    return;
  }
  static const void* threads[4096];  // in order of first appearance (not on a small stack)
  size_t known = 0;
  std::fprintf(f, "# coz ledger trace: %llu entries, %llu dropped\n",
               static_cast<unsigned long long>(kept), static_cast<unsigned long long>(n - kept));
  for (uint64_t i = 0; i < kept; i++) {
    const Entry& e = entries[i];
    size_t id = 0;
    if (e.thread != nullptr) {
      while (id < known && threads[id] != e.thread) {
        id++;
      }
      if (id == known && known < 4096) {
        threads[known++] = e.thread;
      }
      id++;
    }
    std::fprintf(f, "%llu %zu %s %llu %llu %llu %llu\n", static_cast<unsigned long long>(e.time_ns),
                 id, name(e.event), static_cast<unsigned long long>(e.a),
                 static_cast<unsigned long long>(e.b), static_cast<unsigned long long>(e.c),
                 static_cast<unsigned long long>(e.d));
  }
  std::fclose(f);
  // Never unmapped: a thread that read the pointer just before it was cleared may still write.
}

}  // namespace coz::ledger_trace
