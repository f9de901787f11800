// Finding and mapping the run's shared memory (see shared_run.h).
#include "runtime/shared_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>

#include "base/own_fds.h"

namespace coz {
namespace {

std::atomic<int> g_run_fd{-1};  // the root's descriptor of the memory (own_fds.h)
size_t mapped_size() {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (sizeof(SharedRun) + page - 1) / page * page;
}

// `fd` < 0: anonymous memory, shared with forked children only (`shared`), or private.
SharedRun* map(int fd, bool shared) {
  int flags = fd >= 0 ? MAP_SHARED : (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS;
  void* p = mmap(nullptr, mapped_size(), PROT_READ | PROT_WRITE, flags, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<SharedRun*>(p);
}

// Where descriptors are scarce: the root's memory as a file of /dev/shm instead, by name, which
// the root maps and holds no descriptor of (empty: a memfd, or no file).
char g_run_file[64] = {};

// A file of /dev/shm holding the run's memory, for a root that cannot spare a descriptor; its
// descriptor (to map, then close), or -1 with nothing left behind.
int create_run_file() {
  snprintf(g_run_file, sizeof g_run_file, "%s%d.%llx", kSharedRunFilePrefix,
           static_cast<int>(getpid()),
           static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&g_run_file)) ^
               static_cast<unsigned long long>(time(nullptr)));
  int fd = open(g_run_file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  // Its pages taken now: a tmpfs that fills up later would otherwise kill the program with SIGBUS
  // when the run's memory is first written.
  if (fd >= 0 && posix_fallocate(fd, 0, static_cast<off_t>(mapped_size())) != 0) {
    close(fd);
    unlink(g_run_file);
    fd = -1;
  }
  if (fd < 0) {
    g_run_file[0] = '\0';
  }
  return fd;
}

// Whether `path` names a run's file of /dev/shm (kSharedRunFilePrefix), and, with `pid` > 0, one
// that process made.
bool is_run_file(const char* path, long pid) {
  size_t prefix = strlen(kSharedRunFilePrefix);
  if (strncmp(path, kSharedRunFilePrefix, prefix) != 0 || strchr(path + prefix, '/')) {
    return false;
  }
  return pid <= 0 || strtol(path + prefix, nullptr, 10) == pid;
}

// Whether a memfd of the segment's size fits under the file size limit (ulimit -f): growing it
// past the limit would raise SIGXFSZ, which kills the program.
bool fits_size_limit() {
  rlimit limit;
  return getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
         limit.rlim_cur >= mapped_size();
}

JoinedRun start(bool follow) {
  JoinedRun joined;
  joined.role = RunRole::kRoot;
  joined.root_pid = getpid();
  int fd = -1;
  if (follow && fits_size_limit()) {
    fd = own_fds::descriptors_scarce() ? create_run_file() : -1;
    fd = fd >= 0 ? fd : memfd_create("coz-run", MFD_CLOEXEC);
  }
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(mapped_size())) != 0) {
    close(fd);
    fd = -1;
    remove_run_file();
  }
  // Without a memfd, anonymous shared memory: forked children still follow; programs the
  // process runs cannot find it, and are left unprofiled.
  SharedRun* run = map(fd, follow);
  if (!run && fd >= 0) {
    close(fd);
    fd = -1;
    remove_run_file();
    run = map(-1, follow);
  }
  if (!run) {
    joined.role = RunRole::kOff;
    joined.why = std::string("cannot map the run's memory: ") + strerror(errno);
    return joined;
  }
  joined.run = new (run) SharedRun;  // zero pages: constructed in place
  joined.run->root_pid.store(joined.root_pid, std::memory_order_relaxed);
  if (fd >= 0 && g_run_file[0]) {
    close(fd);  // the mapping stays; children open the file by name
  } else if (fd >= 0) {
    g_run_fd.store(own_fds::move_high(fd), std::memory_order_relaxed);
    own_fds::adopt(&g_run_fd);
  }
  joined.shared = follow;
  return joined;
}

// This process's PID namespace (the inode /proc/self/ns/pid names), or 0 when unknown.
unsigned long long pid_namespace() {
  char link[64] = {};
  unsigned long long inode = 0;
  if (readlink("/proc/self/ns/pid", link, sizeof link - 1) > 0) {
    sscanf(link, "pid:[%llu]", &inode);
  }
  return inode;
}

}  // namespace

JoinedRun join_run(bool follow) {
  const char* spec = getenv(kSharedRunVariable);
  long pid = 0, fd = -1;
  unsigned long long ns = 0;
  int used = 0, used_ns = 0;
  char file[64] = {};  // the run's file of /dev/shm, in place of a descriptor
  if (spec && sscanf(spec, "%ld:%63[^:]%n", &pid, file, &used) == 2 && file[0] == '/') {
    fd = 0;  // named by path: no descriptor in the root
  } else {
    file[0] = '\0';
  }
  bool valid =
      spec && (file[0] || sscanf(spec, "%ld:%ld%n", &pid, &fd, &used) == 2) &&
      (spec[used] == '\0' ||
       (spec[used] == ':' && spec[used + 1] >= '0' && spec[used + 1] <= '9' &&
        sscanf(spec + used + 1, "%llu%n", &ns, &used_ns) == 1 && spec[used + 1 + used_ns] == '\0'));
  if (!valid || pid <= 0 || (pid == getpid() && (ns == 0 || ns == pid_namespace()))) {
    if (valid && file[0] && is_run_file(file, getpid())) {
      unlink(file);  // a re-exec of the root: its former image's run ends here
    }
    return start(follow);  // no run to join (or a re-exec of the root, or nonsense): a new one
  }
  JoinedRun joined;
  joined.root_pid = static_cast<pid_t>(pid);
  joined.other_pid_namespace = ns != 0 && ns != pid_namespace();
  if (fd < 0 || !follow) {
    return joined;  // children are not followed: say nothing, as before this option existed
  }
  char path[64];
  if (file[0]) {
    snprintf(path, sizeof path, "%s", file);
  } else {
    snprintf(path, sizeof path, "/proc/%ld/fd/%ld", pid, fd);
  }
  // A file by name: only a run's file of /dev/shm, a regular file reached through no link (the
  // root's descriptor is a link of /proc, which must be followed).
  int own = file[0] && !is_run_file(file, 0)
                ? -1
                : open(path, O_RDWR | O_CLOEXEC | (file[0] ? O_NOFOLLOW : 0));
  struct stat st = {};
  if (own >= 0 && file[0] && (fstat(own, &st) != 0 || !S_ISREG(st.st_mode))) {
    close(own);
    own = -1;
    errno = EINVAL;
  }
  if (own < 0 || fstat(own, &st) != 0 || static_cast<size_t>(st.st_size) < mapped_size()) {
    if (joined.other_pid_namespace) {
      joined.why = "it runs in another PID namespace than the run's root (pid " +
                   std::to_string(pid) +
                   " there), whose memory it cannot reach through this /proc; share the root's "
                   "/proc with it (unshare without --mount-proc, docker run --pid=host) to "
                   "profile it";
    } else {
      joined.why = "cannot reach the run's shared memory in process " + std::to_string(pid) + " (" +
                   (own < 0 ? strerror(errno) : "too small") + "; has it exited?)";
    }
    if (own >= 0) {
      close(own);
    }
    return joined;
  }
  SharedRun* run = map(own, true);
  close(own);  // the mapping stays
  if (!run || run->magic != SharedRun::kMagic || run->size != sizeof(SharedRun)) {
    joined.why = "the run's shared memory is from another version of the profiler";
    if (run) {
      munmap(run, mapped_size());
    }
    return joined;
  }
  run->processes.fetch_add(1, std::memory_order_relaxed);
  joined.role = RunRole::kExecFollower;
  joined.shared = true;
  joined.run = run;
  return joined;
}

void publish_run(const JoinedRun& joined, bool follow) {
  char spec[160];
  int fd = follow && joined.shared ? g_run_fd.load(std::memory_order_relaxed) : -1;
  if (follow && joined.shared && g_run_file[0]) {
    snprintf(spec, sizeof spec, "%d:%s:%llu", static_cast<int>(joined.root_pid), g_run_file,
             pid_namespace());
  } else {
    snprintf(spec, sizeof spec, "%d:%d:%llu", static_cast<int>(joined.root_pid), fd,
             pid_namespace());
  }
  setenv(kSharedRunVariable, spec, 1);
}

void remove_run_file() {
  if (g_run_file[0]) {
    unlink(g_run_file);
    g_run_file[0] = '\0';
  }
}

}  // namespace coz
