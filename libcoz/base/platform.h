// The small platform layer: thread ids, clocks, the sampling signal, and allocation-free output
// for signal handlers and early start-up. Everything here is async-signal-safe.
#pragma once

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>

namespace coz::platform {

// The file of the library this code is built into (libcoz.so, as the loader named it: the path in
// LD_PRELOAD), or nullptr.
inline const char* own_library_file() {
  Dl_info self = {};
  return dladdr(reinterpret_cast<void*>(&own_library_file), &self) ? self.dli_fname : nullptr;
}

inline pid_t current_tid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

// A time or a length as nanoseconds, and back (a non-negative one).
inline uint64_t ns_of(const timespec& ts) {
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
inline timespec timespec_of(uint64_t ns) {
  return timespec{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ns_of(ts);
}

// The kernel's tick (1/HZ): the resolution of the coarse clocks, which the tick updates. CPU-time
// timers are checked at the tick too. 0 if unknown.
inline uint64_t kernel_tick_ns() {
  timespec ts;
  return clock_getres(CLOCK_MONOTONIC_COARSE, &ts) == 0 ? ns_of(ts) : 0;
}

inline uint64_t wall_clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ns_of(ts);
}

// The signal that tells a thread its sample buffer has a new sample: a real-time signal near
// the top of the range, so the program keeps SIGPROF and the low real-time signals for itself.
// SIGRTMAX-2 unless something already used it at start-up (sample_signal.h chooses).
inline std::atomic<int> g_sample_signal{0};
inline int sample_signal() {
  int sig = g_sample_signal.load(std::memory_order_relaxed);
  return sig != 0 ? sig : SIGRTMAX - 2;
}
inline void set_sample_signal(int sig) {
  g_sample_signal.store(sig, std::memory_order_relaxed);
}

// A sample of the CPU-time timer sampler (sample/timer_sampler.h) arrives as SI_TIMER with this
// tag in the upper half of its 64-bit sigev_value and the sampler's token in the lower half: the
// program's own timers on the signal carry whatever value it chose, which the handler forwards.
inline constexpr uint64_t kTimerSampleTag = 0xC02A5A3Bull << 32;
// The same for the sampling thread's signals (sample/clock_sampler.h): an SI_TIMER signal (the
// thread's own one-shot timer) or an SI_QUEUE one (rt_tgsigqueueinfo) with this tag and the
// sampler's token in its value.
inline constexpr uint64_t kClockSampleTag = 0xC02A5A3Cull << 32;

// Whether a signal's value carries `tag` (kTimerSampleTag, kClockSampleTag) in its upper half.
inline bool has_sample_tag(const siginfo_t& info, uint64_t tag) {
  uint64_t value = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(info.si_value.sival_ptr));
  return (value & ~uint64_t{0xffffffff}) == tag;
}

// A POSIX timer on `clock` that signals thread `tid` of this process with `sig`, its value `tag`
// and `token` (as sample_token reads it). Returns the timer, or -1 with errno set.
inline int create_sample_timer(clockid_t clock, pid_t tid, int sig, uint64_t tag, int token) {
  sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = sig;
  event._sigev_un._tid = tid;
  event.sigev_value.sival_ptr =
      reinterpret_cast<void*>(static_cast<uintptr_t>(tag | static_cast<uint64_t>(token)));
  int timer = -1;
  return syscall(SYS_timer_create, clock, &event, &timer) == 0 ? timer : -1;
}

// One step of a spin-wait: the pause instruction where there is one.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// The kernel's clock id for thread `tid`'s CPU time (the scheduler's runtime, user and system):
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) in the kernel's posix-cpu-timers. It is what
// pthread_getcpuclockid gives for the calling thread, and it names any thread of this process.
inline clockid_t thread_cpu_clock(pid_t tid) {
  return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 4 | 2);
}

// The sampler token a signal carries (ThreadSampler::signal_token), in any engine's form: perf's
// descriptor (si_fd of a POLL_* signal, through F_SETSIG), the timer's number (an SI_TIMER value
// with its tag) or the sampling thread's (an SI_QUEUE value with its tag); -1 for any other
// signal. Known here, below the engines, because the hooks
// must tell samples from the program's own signals before any engine exists.
inline int sample_token(const siginfo_t* info) {
  if (!info) {
    return -1;
  }
  if (info->si_code >= POLL_IN && info->si_code <= POLL_HUP) {
    return info->si_fd;
  }
  if ((info->si_code == SI_TIMER && has_sample_tag(*info, kTimerSampleTag)) ||
      ((info->si_code == SI_QUEUE || info->si_code == SI_TIMER) &&
       has_sample_tag(*info, kClockSampleTag))) {
    return static_cast<int>(reinterpret_cast<uintptr_t>(info->si_value.sival_ptr) & 0x7fffffff);
  }
  return -1;
}

// The program as it was started (argv[0]), for the profile's startup record.
inline const char* program_name() {
  return program_invocation_name ? program_invocation_name : "";
}

// `path` made absolute against the current directory (as it is now); unchanged when it already
// is, or when the directory cannot be read. The CLI and the profile writer name files this way.
inline std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') {
    return path;
  }
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

// perf_event's register number for the user stack pointer on this CPU (PERF_REG_*_SP).
#if defined(__x86_64__)
inline constexpr int kPerfRegStackPointer = 7;
#elif defined(__aarch64__)
inline constexpr int kPerfRegStackPointer = 31;
#else
#error "coz: add this CPU's perf_event stack-pointer register number"
#endif

// Copies `n` bytes at `addr` in this process into `out`, or returns false if they are not
// mapped (a library may have been unloaded since the address was seen). Never faults.
inline bool read_memory(uintptr_t addr, void* out, size_t n) {
  iovec local = {out, n};
  iovec remote = {reinterpret_cast<void*>(addr), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

// True when the instruction just before `addr` is a call, i.e. `addr` can be a return address.
inline bool follows_call(uintptr_t addr) {
#if defined(__x86_64__)
  unsigned char code[8];
  if (addr < sizeof code || !read_memory(addr - sizeof code, code, sizeof code)) {
    return false;
  }
  const unsigned char* p = code + sizeof code;  // p[-k] is the byte k before addr
  if (p[-5] == 0xE8) {
    return true;  // call rel32
  }
  // call r/m64: FF /2, 2 to 7 bytes long (ModRM, optional SIB and displacement).
  for (int len = 2; len <= 7; len++) {
    const unsigned char* op = p - len;
    if (op[0] == 0xFF && ((op[1] >> 3) & 7) == 2) {
      return true;
    }
  }
  return false;
#elif defined(__aarch64__)
  uint32_t insn;
  if (!read_memory(addr - 4, &insn, sizeof insn)) {
    return false;
  }
  return (insn & 0xFC000000u) == 0x94000000u ||  // BL
         (insn & 0xFFFFFC1Fu) == 0xD63F0000u;    // BLR
#endif
}

// The interrupted thread's instruction, stack and frame pointers, from a signal handler's context.
struct Registers {
  uintptr_t ip = 0;
  uintptr_t sp = 0;
  uintptr_t fp = 0;
};
inline Registers interrupted_registers(const void* context) {
  Registers r;
  if (!context) {
    return r;
  }
  const mcontext_t& m = static_cast<const ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
  r.ip = static_cast<uintptr_t>(m.gregs[REG_RIP]);
  r.sp = static_cast<uintptr_t>(m.gregs[REG_RSP]);
  r.fp = static_cast<uintptr_t>(m.gregs[REG_RBP]);
#elif defined(__aarch64__)
  r.ip = static_cast<uintptr_t>(m.pc);
  r.sp = static_cast<uintptr_t>(m.sp);
  r.fp = static_cast<uintptr_t>(m.regs[29]);
#endif
  return r;
}

// From a signal handler: if the interrupted thread was in a system call the kernel set up to
// restart (SA_RESTART), make that call return EINTR instead, as without SA_RESTART. The kernel
// leaves the instruction pointer on the `syscall` instruction with the call's number in rax.
inline void fail_restarted_syscall_with_eintr(void* context) {
#if defined(__x86_64__)
  greg_t* regs = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  unsigned char insn[2];
  uintptr_t ip = static_cast<uintptr_t>(regs[REG_RIP]);
  uint64_t nr = static_cast<uint64_t>(regs[REG_RAX]);
  if (read_memory(ip, insn, sizeof insn) && insn[0] == 0x0f && insn[1] == 0x05 && nr < 1024 &&
      nr != SYS_exit && nr != SYS_exit_group && nr != SYS_rt_sigreturn) {
    regs[REG_RAX] = -EINTR;
    regs[REG_RIP] = static_cast<greg_t>(ip + 2);
  }
#else
  (void)context;  // elsewhere the call restarts, as with SA_RESTART
#endif
}

// Writes a message to stderr with write(2): no allocation, no locks. A raw system call: the
// runtime's own write() hook needs the real functions, and this reports that they are missing.
inline void write_stderr(const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = syscall(SYS_write, STDERR_FILENO, text, left);
    if (n <= 0) {
      return;
    }
    text += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace coz::platform
