/* Issue 51's candidate samplers without perf_event, measured side by side outside the runtime:
 * what each costs and how evenly it samples a busy thread's CPU time. One busy thread (a
 * multiply chain) and IDLE threads blocked in read() on a pipe that never delivers, for SECONDS.
 *
 *   timer   a CPU-time timer per thread (timer_create(CLOCK_THREAD_CPUTIME_ID), 1 ms): today's
 *           engine. The kernel checks CPU timers at its tick (HZ), so samples come in tick lumps.
 *   thread  one sampling thread wakes every 1 ms (CLOCK_MONOTONIC), reads each thread's CPU clock
 *           and signals (tgkill) those that ran half a period or more since their last sample
 *           (the sample stands for all of it). A thread whose clock did not move is read less and
 *           less often (every 2^k wake-ups, k up to BACKOFF), so idle threads cost little; when no
 *           thread's clock moved, the sampler's own sleep doubles, up to 16 ms, and is back at
 *           1 ms as soon as one moves.
 *   wake    the sampling thread's wake-ups alone (it reads and signals nothing): their share of
 *           the thread design's cost.
 *   wall    a wall-clock timer per thread (CLOCK_MONOTONIC, 1 ms), the handler gated by the
 *           thread's CPU time: idle threads are woken every period; counts the interrupted
 *           read()s that return EINTR (a program would see them without SA_RESTART).
 *
 * Prints: the process's CPU time beyond the busy thread's (the sampler's cost, in % of a core),
 * samples of the busy thread per second of its CPU time, the CPU time between its samples (mean
 * and 99th percentile, in ms), signals delivered to idle threads, and EINTRs.
 * Usage: designs timer|thread|wake|wall IDLE SECONDS [BACKOFF [BUSY]] (BUSY 0: no busy
 * thread, the idle ones alone). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SIG (SIGRTMIN + 3)
#define PERIOD_NS 1000000ll
#define MAX_THREADS 4096
#define MAX_SAMPLES 200000

static int mode; /* 0 timer, 1 thread, 2 wall, 3 wake */
static int backoff_max = 6;
static atomic_int stop;
static pid_t tids[MAX_THREADS];
static clockid_t clocks[MAX_THREADS];
static atomic_int nthreads;
static atomic_long idle_signals, eintrs;
static pid_t busy_tid;
static __thread long long last_cpu; /* the handler's gate (wall mode) */
static long long gaps[MAX_SAMPLES];
static atomic_int ngaps;
static long long busy_last_sample;

static long long now_ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void handler(int sig, siginfo_t* info, void* ctx) {
  (void)sig; (void)info; (void)ctx;
  pid_t self = (pid_t)syscall(SYS_gettid);
  long long cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
  if (mode == 2) {
    if (cpu - last_cpu < PERIOD_NS) {
      if (self != busy_tid) atomic_fetch_add(&idle_signals, 1);
      return; /* not a period of CPU yet: no sample */
    }
    last_cpu = cpu;
  }
  if (self == busy_tid) {
    int n = atomic_fetch_add(&ngaps, 1);
    if (n < MAX_SAMPLES) gaps[n] = cpu - busy_last_sample;
    busy_last_sample = cpu;
  } else {
    atomic_fetch_add(&idle_signals, 1);
  }
}

static void arm_own_timer(void) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIG;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t timer;
  if (timer_create(mode == 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ev, &timer) != 0) {
    perror("timer_create");
    exit(1);
  }
  struct itimerspec spec = {{0, PERIOD_NS}, {0, PERIOD_NS}};
  timer_settime(timer, 0, &spec, NULL);
}

static void enroll(void) {
  int i = atomic_fetch_add(&nthreads, 1);
  tids[i] = (pid_t)syscall(SYS_gettid);
  pthread_getcpuclockid(pthread_self(), &clocks[i]);
  if (mode == 0 || mode == 2) arm_own_timer();
}

static int never[2];
static void* idle_main(void* arg) {
  (void)arg;
  enroll();
  char c;
  while (!atomic_load(&stop)) {
    if (read(never[0], &c, 1) < 0 && errno == EINTR) atomic_fetch_add(&eintrs, 1);
  }
  return NULL;
}

static volatile unsigned long sink;
static void* busy_main(void* arg) {
  (void)arg;
  busy_tid = (pid_t)syscall(SYS_gettid);
  busy_last_sample = now_ns(CLOCK_THREAD_CPUTIME_ID);
  enroll();
  unsigned long v = 1;
  while (!atomic_load(&stop)) {
    for (long i = 0; i < 100000; i++) v = v * 2654435761ul + (unsigned long)i;
  }
  sink = v;
  return NULL;
}

/* The sampling thread (mode thread). */
static void* sampler_main(void* arg) {
  (void)arg;
  static long long last[MAX_THREADS], seen[MAX_THREADS];
  static int quiet[MAX_THREADS];
  long long sleep_ns = PERIOD_NS;
  for (long tick = 0; !atomic_load(&stop); tick++) {
    struct timespec d = {0, sleep_ns};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
    int moved = 0;
    int n = mode == 3 ? 0 : atomic_load(&nthreads);
    for (int i = 0; i < n; i++) {
      int k = quiet[i] < backoff_max ? quiet[i] : backoff_max;
      if (tick % (1l << k) != 0) continue;
      struct timespec t;
      if (clock_gettime(clocks[i], &t) != 0) continue;
      long long cpu = t.tv_sec * 1000000000ll + t.tv_nsec;
      quiet[i] = cpu == seen[i] ? quiet[i] + 1 : 0;
      moved |= quiet[i] == 0;
      seen[i] = cpu;
      /* Half a period or more: a sample that stands for all the CPU time since the last (the
       * check itself lands anywhere in the thread's period). */
      if (cpu - last[i] >= PERIOD_NS / 2) {
        last[i] = cpu;
        syscall(SYS_tgkill, getpid(), tids[i], SIG);
      }
    }
    sleep_ns = moved || mode == 3 ? PERIOD_NS : (sleep_ns * 2 > 16 * PERIOD_NS ? 16 * PERIOD_NS : sleep_ns * 2);
  }
  return NULL;
}

static int cmp(const void* a, const void* b) {
  long long x = *(const long long*)a, y = *(const long long*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: designs timer|thread|wall IDLE SECONDS [BACKOFF]\n");
    return 2;
  }
  mode = strcmp(argv[1], "timer") == 0    ? 0
         : strcmp(argv[1], "thread") == 0 ? 1
         : strcmp(argv[1], "wake") == 0   ? 3
                                          : 2;
  int idle = atoi(argv[2]);
  double seconds = atof(argv[3]);
  if (argc > 4) backoff_max = atoi(argv[4]);
  int with_busy = argc > 5 ? atoi(argv[5]) : 1;
  if (pipe(never) != 0) return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: an interrupted read() shows as EINTR */
  sigaction(SIG, &sa, NULL);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 << 10);
  pthread_t threads[MAX_THREADS];
  for (int i = 0; i < idle; i++) pthread_create(&threads[i], &attr, idle_main, NULL);
  pthread_t busy, sampler;
  if (with_busy) {
    pthread_create(&busy, NULL, busy_main, NULL);
  } else {
    busy = pthread_self();  /* its CPU time: ~0 while it sleeps below */
  }
  if (mode == 1 || mode == 3) pthread_create(&sampler, NULL, sampler_main, NULL);
  clockid_t busy_clock;
  pthread_getcpuclockid(busy, &busy_clock);
  long long cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  long long busy0 = now_ns(busy_clock);
  struct timespec s = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
  nanosleep(&s, NULL);
  long long process_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  long long busy_cpu = now_ns(busy_clock) - busy0;
  atomic_store(&stop, 1);
  int n = atomic_load(&ngaps) < MAX_SAMPLES ? atomic_load(&ngaps) : MAX_SAMPLES;
  qsort(gaps, (size_t)n, sizeof gaps[0], cmp);
  double mean = 0;
  for (int i = 0; i < n; i++) mean += (double)gaps[i];
  mean = n ? mean / n : 0;
  printf("mode=%s idle=%d overhead_pct=%.2f samples_per_cpu_s=%.0f gap_mean_ms=%.2f gap_p99_ms=%.2f "
         "idle_signals=%ld eintr=%ld\n",
         argv[1], idle, 100.0 * (double)(process_cpu - busy_cpu) / (seconds * 1e9),
         n / (busy_cpu / 1e9), mean / 1e6, n ? gaps[(int)(n * 0.99)] / 1e6 : 0,
         atomic_load(&idle_signals), atomic_load(&eintrs));
  fflush(stdout);
  _exit(0); /* the idle threads stay blocked in read() */
}
