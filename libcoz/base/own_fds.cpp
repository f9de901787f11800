// The table of the profiler's own descriptors (see own_fds.h): one slot pointer per descriptor
// number, in chunks mapped on first use, so lookups never lock or allocate.
#include "base/own_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdio>

#include "base/platform.h"

namespace coz::own_fds {
namespace {

constexpr int kChunk = 4096;
constexpr int kChunks = 256;  // descriptors below 1M; higher ones are never registered
// Below this soft limit, a descriptor of the profiler's within the program's reach is worth a
// warning; above it there is no need to go above the limit (see dup_high).
constexpr long kLowLimit = 4096;
// Where the profiler's descriptors go under a soft limit above kLowLimit: far above the numbers
// programs use (they take the lowest free one), yet low, since a descriptor at number N makes
// every process of the run carry a descriptor table of N entries, which each fork copies.
constexpr int kHighBase = 1024;
// A registered descriptor: its owner's slot, and the file it named when registered, so a number
// the program took over behind the hooks' back (a raw close_range syscall) is never closed, read
// or written by the profiler.
struct Entry {
  std::atomic<std::atomic<int>*> slot;
  dev_t dev;
  ino_t ino;
};

std::atomic<Entry*> g_chunks[kChunks];
std::atomic<int> g_max_fd{-1};  // highest number ever registered
std::atomic<long> g_count{0};   // descriptors registered now
std::atomic<bool> g_locked{false};
std::atomic<pid_t> g_owner{0};  // the process the table describes
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

Entry* entry(int fd, bool create) {
  if (fd < 0 || fd >= kChunk * kChunks) {
    return nullptr;
  }
  Entry* chunk = g_chunks[fd / kChunk].load(std::memory_order_acquire);
  if (!chunk && create) {  // under the lock: no other creator
    void* p = mmap(nullptr, sizeof(Entry) * kChunk, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      return nullptr;
    }
    chunk = static_cast<Entry*>(p);  // zero pages: every entry starts null
    g_chunks[fd / kChunk].store(chunk, std::memory_order_release);
  }
  return chunk ? &chunk[fd % kChunk] : nullptr;
}

void set_entry(int fd, std::atomic<int>* slot, const struct stat* identity = nullptr) {
  if (Entry* e = entry(fd, slot != nullptr)) {
    if (slot) {
      struct stat st = {};
      if (!identity && fstat(fd, &st) == 0) {
        identity = &st;
      }
      e->dev = identity ? identity->st_dev : 0;
      e->ino = identity ? identity->st_ino : 0;
    }
    std::atomic<int>* before = e->slot.exchange(slot, std::memory_order_acq_rel);
    if (!before != !slot) {
      g_count.fetch_add(slot ? 1 : -1, std::memory_order_relaxed);
    }
    if (slot && fd > g_max_fd.load(std::memory_order_relaxed)) {
      g_max_fd.store(fd, std::memory_order_relaxed);
    }
  }
}

}  // namespace

// A fork child's descriptors are copies the profiler no longer uses: the program may close them.
// Once per process: the runtime's own fork handler calls it first (its child registers new
// descriptors), and the handler registered here runs later and must leave those alone.
void forget_all_in_child() {
  if (g_owner.load(std::memory_order_relaxed) == getpid()) {
    return;
  }
  for (auto& c : g_chunks) {
    c.store(nullptr, std::memory_order_relaxed);  // the parent's pages stay mapped, unused
  }
  g_max_fd.store(-1, std::memory_order_relaxed);
  g_count.store(0, std::memory_order_relaxed);
  g_owner.store(getpid(), std::memory_order_relaxed);
  g_locked.store(false, std::memory_order_relaxed);
  t_depth = 0;
}

namespace {

__attribute__((constructor)) void register_fork_handler() {
  pthread_atfork(nullptr, nullptr, forget_all_in_child);
}

int raw_close(int fd) {
  return static_cast<int>(syscall(SYS_close, fd));
}

// Whether `fd` still names the file it named when registered. Call with the lock held.
bool same_file(int fd, const Entry* e) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino;
}

}  // namespace

long soft_limit() {
  rlimit rl = {};
  return getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
             ? static_cast<long>(rl.rlim_cur < INT_MAX ? rl.rlim_cur : INT_MAX)
             : 1024;
}

namespace {

// How many numbers lie above the program's reach (the soft limit) and below the hard limit.
long room_above_limit() {
  rlimit rl = {};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur >= rl.rlim_max || rl.rlim_cur >= INT_MAX) {
    return 0;
  }
  rlim_t top = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > INT_MAX ? INT_MAX : rl.rlim_max;
  return static_cast<long>(top - rl.rlim_cur);
}

// A close-on-exec copy of `fd` above the soft limit, where the program's open() never reaches
// (the kernel keeps descriptors above it; it only refuses new ones): the limit is raised to the
// hard one for the call and put back. The program's own setrlimit()/getrlimit() wait for the
// table's lock (interpose/fd_hooks.cpp), so they never see or undo the raised limit. -1 when
// the hard limit leaves no room.
int dup_above_limit(int fd) {
  rlimit rl = {};
  if (room_above_limit() <= 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0) {
    return -1;
  }
  rlimit raised = rl;
  raised.rlim_cur = rl.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    return -1;
  }
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(rl.rlim_cur));
  int err = errno;
  setrlimit(RLIMIT_NOFILE, &rl);
  errno = err;
  return copy;
}

std::atomic<bool> g_for_program{false};                  // speak_for_program() was called
std::atomic<std::atomic<bool>*> g_said_in_run{nullptr};  // its flag in the run's memory

// Said once, when a descriptor had to go within the program's reach under a low limit (in the
// program's process only: coz's own descriptors take nothing from the program).
void warn_within_reach() {
  static std::atomic<bool> said{false};
  long soft = soft_limit();
  if (!g_for_program.load(std::memory_order_relaxed) || soft >= kLowLimit || said.exchange(true)) {
    return;
  }
  std::atomic<bool>* in_run = g_said_in_run.load(std::memory_order_relaxed);
  if (in_run && in_run->exchange(true)) {
    return;  // another process of the run said it
  }
  char text[320];
  snprintf(text, sizeof text,
           "coz: warning: the descriptor limit (ulimit -n %ld) has no room above it up to the "
           "hard limit, so the profiler's descriptors (the profile, one per thread) take numbers "
           "the program could open; raise the hard limit (ulimit -Hn) to keep them out of its "
           "way\n",
           soft);
  platform::write_stderr(text);
}

// A new close-on-exec copy of `fd` at a high number, or -1. Under a soft limit up to kLowLimit:
// above it if the hard limit allows, else in the top quarter of the program's range, then the
// top half (programs take the lowest free number, so they rarely reach these). Under a higher
// limit, from kHighBase up while the profiler holds fewer than a quarter of the program's
// numbers (then as under a low limit): a number near a limit of a million (a container's usual)
// made every fork copy megabytes of descriptor table, and near this machine's 20,000 cost 35 us a
// fork (a loop of fork and exit); the program loses a few of its thousands of numbers.
int dup_high(int fd) {
  Lock lock;
  long soft = soft_limit();
  if (soft > kLowLimit && g_count.load(std::memory_order_relaxed) < soft / 4) {
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, kHighBase);
    if (copy >= 0) {
      return copy;
    }
  }
  int above = dup_above_limit(fd);
  if (above >= 0) {
    return above;
  }
  warn_within_reach();
  const long bases[] = {soft - soft / 4, soft / 2};
  for (long base : bases) {
    if (base > fd && base > STDERR_FILENO) {
      int copy = fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(base));
      if (copy >= 0) {
        return copy;
      }
    }
  }
  return -1;
}

}  // namespace

Lock::Lock() {
  if (t_depth++ > 0) {
    return;  // re-entered by the thread that holds it
  }
  while (g_locked.exchange(true, std::memory_order_acquire)) {
    sched_yield();
  }
}

Lock::~Lock() {
  if (--t_depth == 0) {
    g_locked.store(false, std::memory_order_release);
  }
}

int move_high(int fd) {
  int copy = dup_high(fd);
  if (copy < 0) {
    return fd;
  }
  raw_close(fd);
  return copy;
}

int copy_high(int fd) {
  int copy = dup_high(fd);
  return copy >= 0 ? copy : fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
}

void adopt(std::atomic<int>* slot) {
  Lock lock;
  g_owner.store(getpid(), std::memory_order_relaxed);
  set_entry(slot->load(), slot);
}

void release(std::atomic<int>* slot) {
  Lock lock;
  int fd = slot->exchange(-1);
  Entry* e = entry(fd, false);
  if (fd >= 0 && e && e->slot.load() == slot) {
    bool ours = same_file(fd, e);
    set_entry(fd, nullptr);
    if (ours) {
      raw_close(fd);  // otherwise the number is the program's now: leave it
    }
  }
}

bool still_ours(int fd) {
  Lock lock;
  Entry* e = entry(fd, false);
  return e && e->slot.load() != nullptr && same_file(fd, e);
}

bool room_for_one_more(long* limit) {
  *limit = soft_limit();
  long count = g_count.load(std::memory_order_relaxed);
  return count + 1 <= room_above_limit() || count + 1 <= *limit / 2;
}

bool descriptors_scarce() {
  return room_above_limit() <= 0 && soft_limit() < 1024;
}

void speak_for_program(std::atomic<bool>* said_in_run) {
  g_said_in_run.store(said_in_run, std::memory_order_relaxed);
  g_for_program.store(true, std::memory_order_relaxed);
}

bool owned_here() {
  return g_owner.load(std::memory_order_relaxed) == getpid();
}

void forget(std::atomic<int>* slot) {
  Lock lock;
  int fd = slot->exchange(-1);
  if (fd >= 0) {
    set_entry(fd, nullptr);
  }
}

bool is_ours(int fd) {
  Entry* e = entry(fd, false);
  return e && e->slot.load(std::memory_order_acquire) != nullptr;
}

bool make_room(int fd) {
  Entry* e = entry(fd, false);
  std::atomic<int>* slot = e ? e->slot.load(std::memory_order_acquire) : nullptr;
  if (!slot) {
    return true;
  }
  struct stat identity = {};
  int copy = dup_high(fd);
  if (copy < 0) {
    copy = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);  // any free number will do
  }
  if (copy < 0) {
    return false;
  }
  identity.st_dev = e->dev;
  identity.st_ino = e->ino;
  set_entry(copy, slot, &identity);
  slot->store(copy);
  set_entry(fd, nullptr);
  return true;  // the caller's dup2 replaces (and so closes) the old number
}

int close_range_except_ours(unsigned first, unsigned last, int flags) {
  Lock lock;
  if (first > last) {
    errno = EINVAL;
    return -1;
  }
  int max_ours = g_max_fd.load(std::memory_order_relaxed);
  unsigned from = first;
  int result = 0;
  auto close_span = [&](unsigned a, unsigned b) {
    if (a > b || result != 0) {
      return;
    }
    if (syscall(SYS_close_range, a, b, flags) != 0) {
      result = -1;
    }
  };
  for (long fd = first; max_ours >= 0 && fd <= max_ours && fd <= static_cast<long>(last); fd++) {
    if (is_ours(static_cast<int>(fd))) {
      if (static_cast<unsigned>(fd) > from) {
        close_span(from, static_cast<unsigned>(fd) - 1);
      }
      from = static_cast<unsigned>(fd) + 1;
    }
  }
  close_span(from, last);
  return result;
}

}  // namespace coz::own_fds
