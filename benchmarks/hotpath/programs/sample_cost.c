/* What one sample costs, by mechanism: `sample_cost MODE SECONDS` reads the clock in a loop for
 * SECONDS and counts the time lost to interruptions (gaps over 400 ns), with the calling thread's
 * own task-clock perf_event sampling it every 1 ms of CPU time:
 *   none     no event (the machine's own interruptions)
 *   ring     samples of the instruction pointer into a ring, no signal (what the kernel's
 *            sampling costs)
 *   chain    as ring, with a 32-frame user callchain and 2 KiB of user stack (this project's
 *            sample), no signal
 *   signal   as chain, and a signal per sample to a handler that only returns
 * Prints `mode=... gaps_per_s=G gap_ns_per_s=T samples=N`. The differences between modes, over
 * the samples a second, are the cost of each part. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long handled;

static void on_sample(int sig, siginfo_t* info, void* context) {
  (void)sig, (void)info, (void)context;
  handled++;
}

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: sample_cost none|ring|chain|signal SECONDS\n");
    return 2;
  }
  const char* mode = argv[1];
  double seconds = atof(argv[2]);
  int fd = -1;
  if (strcmp(mode, "none") != 0) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = 1000000;
    attr.sample_type = PERF_SAMPLE_IP;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.wakeup_events = 1;
    if (strcmp(mode, "ring") != 0) {
      attr.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      attr.sample_max_stack = 32;
      attr.exclude_callchain_kernel = 1;
      attr.sample_regs_user = 1ull << 7; /* sp */
      attr.sample_stack_user = 2048;
    }
    fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      perror("perf_event_open");
      return 1;
    }
    /* 64 data pages: the ring never fills in these runs, so the kernel never stops writing. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void* ring = mmap(NULL, page * 65, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
      perror("mmap");
      return 1;
    }
    if (strcmp(mode, "signal") == 0) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = on_sample;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigaction(SIGRTMIN + 3, &sa, NULL);
      struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
      fcntl(fd, F_SETOWN_EX, &owner);
      fcntl(fd, F_SETSIG, SIGRTMIN + 3);
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
  unsigned long long start = now_ns(), deadline = start + (unsigned long long)(seconds * 1e9);
  unsigned long long t = start, gaps = 0, gap_ns = 0;
  while (t < deadline) {
    unsigned long long next = now_ns();
    if (next - t > 400) {
      gaps++;
      gap_ns += next - t;
    }
    t = next;
  }
  double s = (t - start) / 1e9;
  unsigned long long samples = 0;
  if (fd >= 0) {
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    struct {
      unsigned long long value;
    } count;
    if (read(fd, &count, sizeof count) == sizeof count) {
      samples = count.value / 1000000; /* task-clock ns over the period */
    }
  }
  printf("mode=%s gaps_per_s=%.1f gap_ns_per_s=%.0f samples=%llu signals=%lu\n", mode, gaps / s,
         gap_ns / s, samples, handled);
  return 0;
}
