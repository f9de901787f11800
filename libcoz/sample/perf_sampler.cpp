// perf_event per-thread sampling: RAII descriptor and ring, drain (see perf_sampler.h).
#include "sample/perf_sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "base/own_fds.h"
#include "base/platform.h"
#include "base/unique_fd.h"

namespace coz {
namespace {

// Ring sizes to try, in pages of data. Every sample raises its own signal and the handler empties
// the ring, so a sample waits in the ring only while its thread runs on with the signal pending:
// 8 KiB holds 3 samples (2.4 KiB each with a 2 KiB stack copy and 32 frames), 3 ms of the
// thread's CPU time at the default period. Rings are small because each thread has one: the
// kernel allocates and zeroes them at mmap and frees them at close, and unprivileged users may
// lock only kernel.perf_event_mlock_kb per CPU plus ulimit -l for all of them
// (docs/measured-choices.md, for what 16 pages cost). A thread beyond that is reported unsampled.
constexpr size_t kDataPages[] = {2, 1};
// header, ip, nr, callchain, regs abi + sp, stack size + data + dyn size
constexpr size_t kMaxRecord = 8 + 8 + 8 + 8 * 128 + 16 + 8 + 4096 + 8;

// A perf_event descriptor, registered as the profiler's own (own_fds.h): the program can
// neither close it nor dup2 onto it. Not movable: its address is its registration.
class EventFd {
 public:
  explicit EventFd(int fd) : fd_(fd) {
    if (fd >= 0) {
      own_fds::adopt(&fd_);
    }
  }
  ~EventFd() { own_fds::release(&fd_); }
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;
  int get() const { return fd_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int> fd_;
};

}  // namespace

// Rings of exited threads, unmapped in batches. Unmapping is most of a thread's exit cost: the
// kernel maps a ring's pages when it is mapped, so each munmap flushes the TLB of every other CPU
// running the process, an inter-processor interrupt each (with many short-lived threads, a large
// share of all CPU time). Rings mapped one after another usually lie side by side, so a
// batch sorted by address unmaps as a few ranges, one flush each. A buried ring's descriptor is
// already closed; its event, disabled, is released with the mapping.
class RingGraveyard {
 public:
  void bury(void* base, size_t size) {
    Grave batch[kBatch];
    size_t n = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      graves_[count_++] = {reinterpret_cast<uintptr_t>(base), size};
      if (count_ < kBatch) {
        return;
      }
      n = take(batch);
    }
    unmap(batch, n);  // outside the lock: other exiting threads go on burying
  }
  // Unmaps every buried ring (to give their locked memory back before mapping a new one).
  bool flush() {
    Grave batch[kBatch];
    size_t n;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      n = take(batch);
    }
    unmap(batch, n);
    return n > 0;
  }

 private:
  static constexpr size_t kBatch = 128;
  struct Grave {
    uintptr_t base;
    size_t size;
  };

  size_t take(Grave* out) {
    size_t n = count_;
    std::copy(graves_, graves_ + n, out);
    count_ = 0;
    return n;
  }
  static void unmap(Grave* g, size_t n) {
    std::sort(g, g + n, [](const Grave& a, const Grave& b) { return a.base < b.base; });
    for (size_t i = 0; i < n;) {
      uintptr_t start = g[i].base, end = g[i].base + g[i].size;
      for (i++; i < n && g[i].base == end; i++) {
        end += g[i].size;
      }
      munmap(reinterpret_cast<void*>(start), end - start);
    }
  }

  std::mutex mutex_;
  Grave graves_[kBatch];
  size_t count_ = 0;
};

namespace {

// The mmap'd ring of one event; move-only. Buried in `graveyard` when destroyed, if given.
class Ring {
 public:
  Ring() = default;
  ~Ring() {
    if (base_ == MAP_FAILED) {
      return;
    }
    if (graveyard_) {
      graveyard_->bury(base_, size_);
    } else {
      munmap(base_, size_);
    }
  }
  Ring(Ring&& o) noexcept
      : base_(o.base_),
        size_(o.size_),
        data_(o.data_),
        data_size_(o.data_size_),
        graveyard_(o.graveyard_) {
    o.base_ = MAP_FAILED;
  }
  Ring& operator=(Ring&&) = delete;
  Ring(const Ring&) = delete;

  bool map(int fd, size_t data_pages, RingGraveyard* graveyard) {
    graveyard_ = graveyard;
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_ = page * (1 + data_pages);
    base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base_ == MAP_FAILED) {
      return false;
    }
    // Kernels before 4.1 leave data_offset and data_size zero: data then starts one page in.
    uint64_t offset = header()->data_offset ? header()->data_offset : page;
    data_ = static_cast<const unsigned char*>(base_) + offset;
    data_size_ = header()->data_size ? header()->data_size : size_ - page;
    return true;
  }
  perf_event_mmap_page* header() const { return static_cast<perf_event_mmap_page*>(base_); }
  const unsigned char* data() const { return data_; }
  uint64_t data_size() const { return data_size_; }

 private:
  void* base_ = MAP_FAILED;
  size_t size_ = 0;
  const unsigned char* data_ = nullptr;
  uint64_t data_size_ = 0;
  RingGraveyard* graveyard_ = nullptr;
};

class PerfThreadSampler : public ThreadSampler {
 public:
  // `fd` is the descriptor signals name (si_fd): that number stays this sampler's signal token
  // even if the descriptor later moves (the kernel keeps the number it was registered with).
  PerfThreadSampler(int fd, Ring ring) : fd_(fd), signal_fd_(fd), ring_(std::move(ring)) {}
  ~PerfThreadSampler() override { disable(); }

  void enable() override { ioctl(fd_.get(), PERF_EVENT_IOC_ENABLE, 0); }
  void disable() override { ioctl(fd_.get(), PERF_EVENT_IOC_DISABLE, 0); }
  int signal_token() const override { return signal_fd_; }
  const volatile uint32_t* switch_count() const override { return &ring_.header()->lock; }
  uint64_t lost() const override { return lost_.load(std::memory_order_relaxed); }

  bool has_pending() const override {
    const perf_event_mmap_page* h = ring_.header();
    return __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE) != h->data_tail;
  }
  size_t drain(SampleVisitor visit, void* context) override {
    perf_event_mmap_page* h = ring_.header();
    const unsigned char* data = ring_.data();
    uint64_t size = ring_.data_size();
    uint64_t head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = h->data_tail;
    size_t visited = 0;
    unsigned char* record = record_;  // a member: signal handlers may run on small stacks
    while (tail + sizeof(perf_event_header) <= head) {
      perf_event_header eh;
      copy_out(data, size, tail, &eh, sizeof eh);
      if (eh.size < sizeof eh || tail + eh.size > head) {
        break;
      }
      if (eh.type == PERF_RECORD_SAMPLE && eh.size <= kMaxRecord) {
        copy_out(data, size, tail, record, eh.size);
        Sample s;
        if (parse_sample(reinterpret_cast<uint64_t*>(record + sizeof eh),
                         (eh.size - sizeof eh) / sizeof(uint64_t), &s)) {
          visit(s, context);
          visited++;
        }
      } else if (eh.type == PERF_RECORD_LOST && eh.size >= sizeof eh + 16) {
        uint64_t lost_words[2];
        copy_out(data, size, tail + sizeof eh, lost_words, sizeof lost_words);
        lost_.fetch_add(lost_words[1], std::memory_order_relaxed);
      }
      tail += eh.size;
    }
    __atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
    return visited;
  }

 private:
  // Decodes a sample laid out as PERF_SAMPLE_IP | CALLCHAIN | REGS_USER (sp) | STACK_USER.
  static bool parse_sample(uint64_t* w, size_t n, Sample* out) {
    if (n < 2 || 2 + w[1] > n) {
      return false;
    }
    size_t depth = static_cast<size_t>(w[1]);
    out->ip = static_cast<uintptr_t>(w[0]);
    out->callchain = w + 2;
    size_t pos = 2 + depth;
    out->depth = callers_only(w[0], w + 2, depth);
    out->stack = nullptr;
    out->stack_words = 0;
    if (pos >= n) {
      return true;
    }
    uint64_t abi = w[pos++];
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
      pos++;  // the stack pointer itself: the stack copy starts there
    }
    if (pos >= n) {
      return true;
    }
    uint64_t stack_size = w[pos++];
    if (stack_size == 0 || pos + stack_size / 8 + 1 > n) {
      return true;
    }
    uint64_t dyn_size = w[pos + stack_size / 8];  // bytes actually copied
    out->stack = w + pos;
    out->stack_words = static_cast<size_t>((dyn_size < stack_size ? dyn_size : stack_size) / 8);
    return true;
  }

  // Compacts a callchain in place to the callers' return addresses: drops the context markers
  // (PERF_CONTEXT_*) and the leading copy of the sampled ip. Returns the new depth.
  static size_t callers_only(uint64_t ip, uint64_t* chain, size_t depth) {
    size_t out = 0;
    bool skipped_ip = false;
    for (size_t i = 0; i < depth; i++) {
      uint64_t a = chain[i];
      if (a >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {
        continue;
      }
      if (!skipped_ip && out == 0 && a == ip) {
        skipped_ip = true;
        continue;
      }
      chain[out++] = a;
    }
    return out;
  }

  static void copy_out(const unsigned char* data, uint64_t size, uint64_t pos, void* out,
                       size_t n) {
    uint64_t start = pos % size;
    size_t first = static_cast<size_t>(size - start < n ? size - start : n);
    memcpy(out, data + start, first);
    memcpy(static_cast<unsigned char*>(out) + first, data, n - first);
  }

  EventFd fd_;
  const int signal_fd_;
  Ring ring_;
  // Added to by drain() on the sampled thread (in its signal handler), read by any thread
  // (ThreadRegistry::samples_lost): a relaxed atomic, lock-free, so neither side locks.
  std::atomic<uint64_t> lost_{0};
  static_assert(std::atomic<uint64_t>::is_always_lock_free, "the signal path never locks");
  alignas(8) unsigned char record_[kMaxRecord];  // one record, copied out of the ring
};

int read_paranoid() {
  int value = -100;
  if (FILE* f = fopen("/proc/sys/kernel/perf_event_paranoid", "re")) {
    if (fscanf(f, "%d", &value) != 1) {
      value = -100;
    }
    fclose(f);
  }
  return value;
}

// A sentence explaining why perf_event_open failed with `err`, and what to do about it.
std::string explain_perf_event_error(int err) {
  std::string what = std::string("perf_event_open failed (") + strerror(err) + ")";
  if (err == ENOSYS || err == ENOENT || err == EOPNOTSUPP) {
    return what + ": this kernel has no software perf events; profiling needs CONFIG_PERF_EVENTS";
  }
  if (err == EACCES || err == EPERM) {
    int paranoid = read_paranoid();
    if (paranoid > 2) {
      return what + " because kernel.perf_event_paranoid is " + std::to_string(paranoid) +
             "; allow user-space sampling with: sudo sysctl kernel.perf_event_paranoid=2";
    }
    std::string level = paranoid == -100 ? "unknown" : std::to_string(paranoid);
    return what + " although kernel.perf_event_paranoid is " + level +
           "; a container or seccomp policy is blocking perf_event_open: allow it (e.g. docker "
           "--cap-add PERFMON or a seccomp profile permitting perf_event_open)";
  }
  if (err == EMFILE || err == ENFILE) {
    return what + ": out of file descriptors; raise the limit with ulimit -n";
  }
  return what;
}

}  // namespace

bool PerfSamplerBackend::refused(int err) {
  return err == EACCES || err == EPERM || err == ENOSYS || err == ENOENT || err == EOPNOTSUPP;
}

int PerfSamplerBackend::probe(std::string* why) {
  perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    int err = errno;
    *why = explain_perf_event_error(err);
    return err;
  }
  close(fd);
  return 0;
}

bool PerfSamplerBackend::reads_signal(const siginfo_t& info, SignalSample* out) const {
  int token = platform::sample_token(&info);
  if (info.si_code == SI_TIMER || token < 0) {
    return false;
  }
  out->token = token;
  out->overrun = 0;
  return true;
}

PerfSamplerBackend::PerfSamplerBackend(SamplerSettings settings)
    : settings_(settings), graveyard_(std::make_unique<RingGraveyard>()) {}

PerfSamplerBackend::~PerfSamplerBackend() = default;

std::unique_ptr<ThreadSampler> PerfSamplerBackend::open_thread(pid_t tid, std::string* error) {
  long limit = 0;
  if (!own_fds::room_for_one_more(&limit)) {
    *error =
        "the profiler keeps half of the descriptor limit (" + std::to_string(limit) +
        ") for the program, and that many threads are sampled already; raise it with ulimit -n";
    return nullptr;
  }
  perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = settings_.period_ns;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  if (settings_.stack_bytes > 0) {
    attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    attr.sample_regs_user = 1ull << platform::kPerfRegStackPointer;
    attr.sample_stack_user = settings_.stack_bytes & ~7u;
  }
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.exclude_idle = 1;
  attr.exclude_callchain_kernel = 1;
  // With O_ASYNC the kernel signals every overflow whatever wakeup_events says (one signal per
  // sample at wakeup_events=10 too), so each sample is handled in its own signal.
  attr.wakeup_events = 1;
  attr.sample_max_stack = static_cast<uint16_t>(settings_.max_stack);

  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0 && (errno == EINVAL || errno == E2BIG)) {  // before 4.8: no sample_max_stack
    attr.sample_max_stack = 0;
    fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  }
  if (fd < 0) {
    int err = errno;
    *error = explain_perf_event_error(err);
    errno = err;  // for the caller's choice of sampler (refused())
    return nullptr;
  }
  fd = own_fds::move_high(fd);
  UniqueFd event(fd);  // closed on the failure paths below; adopted by the sampler on success
  Ring ring;
  bool mapped = false;
  for (bool retry = true; !mapped && retry;) {
    for (size_t pages : kDataPages) {
      if ((mapped = ring.map(fd, pages, graveyard_.get())) || (errno != EPERM && errno != ENOMEM)) {
        break;
      }
    }
    // Out of locked memory: the buried rings of exited threads still count; free them and retry.
    retry = !mapped && (errno == EPERM || errno == ENOMEM) && graveyard_->flush();
  }
  if (!mapped) {
    *error = std::string("cannot map the perf_event sample buffer (") + strerror(errno) +
             "); raise kernel.perf_event_mlock_kb or ulimit -l";
    return nullptr;
  }
  if (settings_.signal != 0) {
    f_owner_ex owner = {F_OWNER_TID, tid};
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0 ||
        fcntl(fd, F_SETSIG, settings_.signal) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0) {
      *error = std::string("cannot route perf_event signals to thread ") + std::to_string(tid) +
               " (" + strerror(errno) + ")";
      return nullptr;
    }
  }
  return std::make_unique<PerfThreadSampler>(event.release(), std::move(ring));
}

}  // namespace coz
