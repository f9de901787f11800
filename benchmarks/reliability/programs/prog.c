/* One fixture program with many behaviours, for benchmarks/reliability/run.py.
 *
 * usage: prog MODE [args...]; REL_WORK=N sets the amount of computing (N units of 30 ms of the
 * thread's CPU time each, whatever the CPU's speed; default 24). Every mode's output (stdout, stderr, exit status,
 * files written in the current directory) is deterministic, so a run under the profiler can be
 * compared byte for byte with a native run. Files are written with write(2) on purpose: a
 * profiler that writes into the program's descriptors shows up in those files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coz.h"

volatile unsigned long sink;

/* The calling thread's CPU time in nanoseconds. */
static unsigned long long cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Multiply-adds on the HOT line for `ns` of the thread's CPU time: the same length on a fast CPU
 * as on a slow one, so experiments fit in a run of any speed. */
__attribute__((noinline)) static unsigned long compute_for(unsigned long long ns, unsigned long v) {
  unsigned long long end = cpu_ns() + ns;
  do {
    for (unsigned long i = 0; i < 1000000ul; i++) v = v * 2654435761ul + i; /* HOT */
  } while (cpu_ns() < end);
  return v;
}

__attribute__((noinline)) static void spin(int units) {
  unsigned long v = 1;
  for (int u = 0; u < units; u++) {
    v = compute_for(30000000ull, v);
    COZ_PROGRESS_NAMED("unit");
  }
  sink = v;
}

/* The same work with a progress point ten times as often: short experiments, many records. */
__attribute__((noinline)) static void spin_fine(int units) {
  unsigned long v = 1;
  for (int u = 0; u < units * 10; u++) {
    unsigned long long end = cpu_ns() + 3000000ull;
    do {
      for (unsigned long i = 0; i < 100000ul; i++) v = v * 2654435761ul + i; /* FINE */
    } while (cpu_ns() < end);
    COZ_PROGRESS_NAMED("fine");
  }
  sink = v;
}

static int work(void) {
  const char* w = getenv("REL_WORK");
  return w && *w ? atoi(w) : 24;
}

static void put(int fd, const char* s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t k = write(fd, s, n);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      fprintf(stderr, "write failed: %s\n", strerror(errno));
      exit(70);
    }
    s += k;
    n -= (size_t)k;
  }
}

static int create(const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    fprintf(stderr, "open %s failed: %s\n", path, strerror(errno));
    exit(71);
  }
  return fd;
}

/* The program's own files after closing every descriptor it did not open. */
static int after_close(void) {
  int a = create("mydata.txt");
  put(a, "first line\n");
  spin(work());
  put(a, "second line\n");
  int b = create("later.txt");  /* a descriptor opened late, after experiments ran */
  put(b, "late file\n");
  spin(work() / 4);
  put(a, "third line\n");
  put(b, "late file end\n");
  close(a);
  close(b);
  printf("closed and wrote\n");
  return 0;
}

static volatile sig_atomic_t counts[_NSIG];
static volatile sig_atomic_t user_codes[_NSIG];
static void on_signal(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  counts[sig]++;
  if (info->si_code == SI_TKILL || info->si_code == SI_USER || info->si_code == SI_QUEUE) user_codes[sig]++;
}

static void print_mask(const char* what, const sigset_t* set) {
  char bits[_NSIG + 1];
  for (int s = 1; s < _NSIG; s++) bits[s - 1] = sigismember(set, s) ? '1' : '0';
  bits[_NSIG - 1] = 0;
  printf("%s %s\n", what, bits);
}

static void* mask_thread(void* arg) {
  (void)arg;
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  print_mask("thread inherited", &now);
  spin(work() / 4);
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  print_mask("thread after work", &now);
  return NULL;
}

static sem_t acked;
static void* sender(void* arg) {
  (void)arg;
  int sigs[3] = {SIGUSR1, SIGRTMAX - 2, SIGUSR2};
  spin(work() / 2);
  for (int i = 0; i < 3; i++) {
    kill(getpid(), sigs[i]);
    while (sem_wait(&acked) != 0) {
    }
  }
  return NULL;
}

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

static void* thread_work(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (unsigned long i = 0; i < 200000ul; i++) v = v * 2654435761ul + i;
  sink = v;
  return arg;
}

static void* exit_from_thread(void* arg) {
  (void)arg;
  spin(work());
  printf("a thread calls exit(5)\n");
  exit(5);
}

static pthread_mutex_t cancel_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cancel_cond = PTHREAD_COND_INITIALIZER;
static int cancel_pipe[2];
static sem_t cancel_sem;
static volatile int cleanups;
static void cleanup_unlock(void* arg) {
  (void)arg;
  cleanups++;
  pthread_mutex_unlock(&cancel_mutex);
}
static void* cancel_cond_wait(void* arg) {
  (void)arg;
  pthread_mutex_lock(&cancel_mutex);
  pthread_cleanup_push(cleanup_unlock, NULL);
  for (;;) pthread_cond_wait(&cancel_cond, &cancel_mutex);
  pthread_cleanup_pop(1);
  return NULL;
}
static void* cancel_sleep(void* arg) {
  (void)arg;
  for (;;) sleep(100);
  return NULL;
}
static void* cancel_read(void* arg) {
  (void)arg;
  char c;
  for (;;) read(cancel_pipe[0], &c, 1);
  return NULL;
}
static void* cancel_sem_wait(void* arg) {
  (void)arg;
  for (;;) sem_wait(&cancel_sem);
  return NULL;
}
static void* cancel_spin(void* arg) {
  (void)arg;
  for (;;) {
    spin(1);
    pthread_testcancel();
  }
  return NULL;
}

/* ---- runtime reliability modes (issue 24): threads under a user's preload, masks across exec
 * and posix_spawn, descriptor and address-space limits, quick_exit. */
extern char** environ;

static void quick_exit_handler(void) {
  put(1, "at_quick_exit handler ran\n");
}

static void* rt_thread(void* arg) {
  spin(work() / 8);
  return arg;
}

static void rt_show_mask(const char* what) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  print_mask(what, &now);
}

static void rt_spawn_show(const char* self, const posix_spawnattr_t* attr, const char* what) {
  char* child_argv[] = {(char*)self, "rt-mask-show", (char*)what, NULL};
  pid_t pid;
  fflush(stdout);
  int rc = posix_spawn(&pid, "/proc/self/exe", NULL, attr, child_argv, environ);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  printf("spawn %s: rc %d, status %d\n", what, rc, status);
}

/* Returns the mode's exit status, or -1 when `mode` is not one of these. */
static int runtime_mode(const char* mode, int argc, char** argv) {
  if (strcmp(mode, "rt-threads") == 0) {  /* 4 threads, for a user's pthread_create wrapper */
    pthread_t ts[4];
    for (long i = 0; i < 4; i++) pthread_create(&ts[i], NULL, rt_thread, (void*)i);
    long sum = 0;
    for (int i = 0; i < 4; i++) {
      void* r;
      pthread_join(ts[i], &r);
      sum += (long)r;
    }
    spin(work());
    printf("4 threads joined, sum %ld\n", sum);
    return 0;
  }
  if (strcmp(mode, "rt-mask-exec") == 0) {  /* block everything, a failing exec, then exec */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    spin(work() / 2);
    execl("/nonexistent/prog", "prog", (char*)NULL);
    printf("exec failed: %s\n", strerror(errno));
    rt_show_mask("after the failed exec");
    spin(work() / 2);
    fflush(stdout);
    execl("/proc/self/exe", argv[0], "rt-mask-show", "after exec", (char*)NULL);
    perror("exec");
    return 1;
  }
  if (strcmp(mode, "rt-mask-spawn") == 0) {  /* block everything, posix_spawn with and without a mask */
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &all, NULL);
    spin(work() / 2);
    rt_spawn_show(argv[0], NULL, "inherited");
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigmask(&attr, &none);
    rt_spawn_show(argv[0], &attr, "empty");
    posix_spawnattr_destroy(&attr);
    spin(work() / 2);
    return 0;
  }
  if (strcmp(mode, "rt-mask-show") == 0) {
    rt_show_mask(argc > 2 ? argv[2] : "mask");
    spin(work() / 4);
    return 0;
  }
  if (strcmp(mode, "rt-nofile") == 0) {  /* as many files as the inherited limit allows, up to 12 */
    pthread_t t;
    pthread_create(&t, NULL, rt_thread, NULL);
    spin(work());
    pthread_join(t, NULL);
    int opened = 0;
    while (opened < 12 && open("/dev/null", O_RDONLY) >= 0) opened++;
    printf("opened %d of 12 files\n", opened);
    return 0;
  }
  if (strcmp(mode, "rt-alloc") == 0) {  /* one allocation of argv[2] MB, under RLIMIT_AS */
    size_t mb = argc > 2 ? (size_t)atoi(argv[2]) : 64;
    spin(work() / 4);  /* the profiler's thread is up (and its allocations made) by now */
    char* p = malloc(mb << 20);
    printf("allocating %zu MB: %s\n", mb, p ? "ok" : "failed");
    spin(work());
    free(p);
    return 0;
  }
  if (strcmp(mode, "rt-quick-exit") == 0) {
    at_quick_exit(quick_exit_handler);
    spin(work());
    printf("calling quick_exit(3)\n");
    fflush(stdout);
    quick_exit(3);
  }
  return -1;
}
/* ---- end of the runtime reliability modes */

/* ---- CLI reliability modes (issue 24): signals a program sends to its own process group, a
 * program that writes nothing to the terminal, one without a progress point. */
static int cli_mode(const char* mode) {
  if (strcmp(mode, "cli-group-signals") == 0) {  /* handles each, sends each to its group */
    int sigs[] = {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGIO, SIGXCPU, SIGXFSZ,
                  SIGPWR, SIGTSTP, SIGTTIN, SIGTTOU, SIGWINCH, SIGRTMIN + 3, SIGRTMAX};
    int n = (int)(sizeof sigs / sizeof sigs[0]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    for (int i = 0; i < n; i++) sigaction(sigs[i], &sa, NULL);
    spin(work() / 2);
    for (int i = 0; i < n; i++) kill(0, sigs[i]);
    spin(work() / 2);
    for (int i = 0; i < n; i++) printf("signal %d: handler ran %d times\n", sigs[i], (int)counts[sigs[i]]);
    return 0;
  }
  if (strcmp(mode, "cli-group-usr1") == 0 || strcmp(mode, "cli-group-term") == 0) {
    int sig = mode[10] == 'u' ? SIGUSR1 : SIGTERM;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, NULL);
    spin(work() / 2);
    kill(0, sig);
    spin(work() / 2);
    printf("signal %d: handler ran %d times\n", sig, (int)counts[sig]);
    return 0;
  }
  if (strncmp(mode, "cli-rm-out=", 11) == 0) {  /* removes the directory named (and its files) halfway */
    const char* dir = mode + 11;
    spin(work() / 2);
    char path[4096];
    snprintf(path, sizeof path, "%s/p.coz", dir);
    unlink(path);
    printf("removed %s: %s\n", dir, rmdir(dir) == 0 ? "yes" : "no");
    fflush(stdout);
    spin(work() / 2);
    return 0;
  }
  if (strcmp(mode, "cli-silent") == 0) {  /* nothing on the terminal: a file only */
    spin(work());
    int fd = create("out.txt");
    put(fd, "written quietly\n");
    close(fd);
    return 0;
  }
  if (strcmp(mode, "cli-no-progress") == 0) {  /* work without a progress point */
    unsigned long v = 1;
    for (unsigned long i = 0; i < 10000000ul * (unsigned long)work(); i++) v = v * 2654435761ul + i;
    sink = v;
    printf("done without progress\n");
    return 0;
  }
  return -1;
}
/* ---- end of the CLI reliability modes */

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ok";
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);

  if (strcmp(mode, "ok") == 0) {
    spin(work());
    int fd = create("out.txt");
    put(fd, "hello from the program\n");
    close(fd);
    printf("done\n");
    fprintf(stderr, "a line on stderr\n");
    return 0;
  }
  if (strcmp(mode, "manyexp") == 0) {
    spin_fine(work());
    int fd = create("out.txt");
    put(fd, "hello from the program\n");
    close(fd);
    printf("done\n");
    return 0;
  }
  if (strcmp(mode, "args") == 0) {
    for (int i = 0; i < argc; i++) printf("argv[%d]=%s\n", i == 0 ? 0 : i, i == 0 ? "(prog)" : argv[i]);
    spin(work() / 4);
    return 0;
  }
  if (strcmp(mode, "cat") == 0) {  /* stdin to stdout, with a checksum on stderr */
    char buf[65536];
    unsigned long sum = 0, total = 0;
    ssize_t n;
    spin(work() / 4);
    while ((n = read(0, buf, sizeof buf)) > 0) {
      for (ssize_t i = 0; i < n; i++) sum = sum * 31 + (unsigned char)buf[i];
      total += (unsigned long)n;
      fwrite(buf, 1, (size_t)n, stdout);
    }
    fprintf(stderr, "read %lu bytes, sum %lu\n", total, sum);
    return 0;
  }
  if (strcmp(mode, "bigout") == 0) {  /* 4 MB on stdout and 256 KB on stderr, interleaved with work */
    for (int r = 0; r < 64; r++) {
      for (int i = 0; i < 1024; i++) printf("line %d.%d the quick brown fox jumps over\n", r, i);
      fprintf(stderr, "stderr %d\n", r);
      if (r % 8 == 0) spin(work() / 8);
    }
    return 0;
  }
  if (strcmp(mode, "return7") == 0) {
    spin(work());
    printf("returning 7\n");
    return 7;
  }
  if (strcmp(mode, "exit") == 0) {
    spin(work());
    printf("exiting 3\n");
    exit(3);
  }
  if (strcmp(mode, "_exit") == 0) {
    spin(work());
    printf("never flushed\n");
    put(1, "written directly\n");
    _exit(4);
  }
  if (strcmp(mode, "abort") == 0) {
    spin(work());
    put(1, "aborting\n");
    abort();
  }
  if (strcmp(mode, "sigkill") == 0) {
    spin(work());
    put(1, "killing myself\n");
    raise(SIGKILL);
  }
  if (strcmp(mode, "segv") == 0) {
    spin(work());
    put(1, "segfaulting\n");
    *(volatile int*)(uintptr_t)8 = 1;
  }
  if (strcmp(mode, "raise") == 0) {
    spin(work());
    put(1, "raising SIGTERM\n");
    raise(SIGTERM);
  }
  if (strcmp(mode, "thread-exit") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, exit_from_thread, NULL);
    pthread_join(t, NULL);
    return 99;
  }
  if (strcmp(mode, "exec") == 0) {
    spin(work() / 2);
    printf("before exec\n");
    fflush(stdout);
    execl("/proc/self/exe", argv[0], "ok", (char*)NULL);
    perror("exec");
    return 1;
  }
  if (strcmp(mode, "exec-sh") == 0) {
    spin(work() / 2);
    printf("before exec\n");
    fflush(stdout);
    execlp("sh", "sh", "-c", "echo from sh; echo sh stderr >&2; echo sh file > sh.txt; exit 6", (char*)NULL);
    perror("exec");
    return 1;
  }
  if (strcmp(mode, "fork") == 0) {  /* fork without exec: the child computes and writes a file */
    spin(work() / 2);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      spin(work() / 2);
      int fd = create("child.txt");
      put(fd, "written by the child\n");
      close(fd);
      printf("child done\n");
      exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    spin(work() / 4);
    printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    return 0;
  }
  if (strcmp(mode, "children") == 0) {  /* 1000 short children: half exit 3, half write a line */
    spin(work() / 4);
    fflush(stdout);
    int codes = 0, lines = 0;
    for (int i = 0; i < 1000; i++) {
      pid_t child = fork();
      if (child == 0) {
        if (i % 2) _exit(3);
        printf("child %d\n", i);
        exit(0);
      }
      int status = 0;
      if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 3) codes++;
        if (WEXITSTATUS(status) == 0) lines++;
      }
    }
    spin(work() / 4);
    printf("1000 children: %d exited 3, %d wrote a line\n", codes, lines);
    return 0;
  }
  if (strcmp(mode, "vfork") == 0) {
    spin(work() / 2);
    fflush(stdout);
    pid_t child = vfork();
    if (child == 0) {
      execl("/bin/sh", "sh", "-c", "exit 5", (char*)NULL);
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    pid_t failed = vfork();
    if (failed == 0) {
      execl("/nonexistent/program", "x", (char*)NULL);
      _exit(9);
    }
    int status2 = 0;
    waitpid(failed, &status2, 0);
    spin(work() / 2);
    printf("vfork children exited %d and %d\n", WEXITSTATUS(status), WEXITSTATUS(status2));
    return 0;
  }
  if (strcmp(mode, "daemon") == 0) {  /* double fork, setsid, close stdio, work, write a file */
    printf("parent leaving\n");
    fflush(stdout);
    pid_t child = fork();
    if (child != 0) {
      int status;
      waitpid(child, &status, 0);
      return 0;
    }
    setsid();
    if (fork() != 0) _exit(0);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
    for (int fd = 3; fd < 1024; fd++) close(fd);
    spin(work());
    int fd = create("daemon.tmp");
    put(fd, "the daemon finished\n");
    close(fd);
    rename("daemon.tmp", "daemon.txt");
    return 0;
  }
  if (strcmp(mode, "close_range") == 0) {
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) printf("close_range failed\n");
    return after_close();
  }
  if (strcmp(mode, "closefrom") == 0) {
    closefrom(3);
    return after_close();
  }
  if (strcmp(mode, "close_loop") == 0) {
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < max; fd++) close((int)fd);
    return after_close();
  }
  if (strcmp(mode, "dup2_high") == 0) {  /* dup2 onto every descriptor above 2, keep them, write */
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    int limit = rl.rlim_cur > 4096 ? 4096 : (int)rl.rlim_cur;
    int fd = create("dupdata.txt");
    put(fd, "start\n");
    int failed = 0;
    for (int k = 3; k < limit; k++)
      if (k != fd && dup2(fd, k) != k) failed++;
    spin(work());
    put(fd, "end\n");
    for (int k = 3; k < limit; k++)
      if (k != fd) close(k);
    close(fd);
    printf("dup2 onto %d descriptors, %d failed\n", limit - 4, failed);
    return 0;
  }
  if (strcmp(mode, "handlers") == 0) {  /* a handler for every signal, then one of each sent */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    int refused = 0;
    for (int s = 1; s <= SIGRTMAX; s++) {
      if (s == SIGKILL || s == SIGSTOP) continue;
      if (sigaction(s, &sa, NULL) != 0) refused++;
    }
    spin(work());
    for (int s = 1; s <= SIGRTMAX; s++) {
      if (s == SIGKILL || s == SIGSTOP || (s > 31 && s < SIGRTMIN)) continue;
      raise(s);
    }
    union sigval v = {.sival_int = 7};
    sigqueue(getpid(), SIGRTMAX - 2, v);
    kill(getpid(), SIGRTMAX - 2);
    spin(work() / 4);
    printf("sigaction refused %d\n", refused);
    for (int s = 1; s <= SIGRTMAX; s++)
      if (counts[s] != 1 || user_codes[s] != 1)
        printf("signal %d: handler ran %d times, %d from the program\n", s, (int)counts[s], (int)user_codes[s]);
    printf("SIGRTMAX-2 (%d): handler ran %d times\n", SIGRTMAX - 2, (int)counts[SIGRTMAX - 2]);
    struct sigaction now;
    sigaction(SIGRTMAX - 2, NULL, &now);
    printf("SIGRTMAX-2 handler reads back as the program's: %d\n", now.sa_sigaction == on_signal);
    return 0;
  }
  if (strcmp(mode, "mask") == 0) {  /* block everything, read the mask back, here and in a thread */
    sigset_t all, now;
    sigfillset(&all);
    sigaddset(&all, SIGRTMAX - 2);
    sigprocmask(SIG_SETMASK, &all, NULL);
    sigprocmask(SIG_BLOCK, NULL, &now);
    print_mask("main set", &now);
    pthread_t t;
    pthread_create(&t, NULL, mask_thread, NULL);
    spin(work());
    pthread_join(t, NULL);
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    print_mask("main after work", &now);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, SIGRTMAX - 2);
    sigprocmask(SIG_SETMASK, &one, NULL);
    sigprocmask(SIG_BLOCK, NULL, &now);
    print_mask("main only SIGRTMAX-2", &now);
    sigset_t pending;
    sigpending(&pending);
    print_mask("pending", &pending);
    return 0;
  }
  if (strcmp(mode, "sigwait") == 0) {  /* sigwaitinfo on every signal while another thread works */
    sigset_t all;
    sigfillset(&all);
    sigaddset(&all, SIGRTMAX - 2);
    sigprocmask(SIG_SETMASK, &all, NULL);
    sem_init(&acked, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, sender, NULL);
    for (int i = 0; i < 3; i++) {
      siginfo_t info;
      int sig = sigwaitinfo(&all, &info);
      printf("sigwait %d got %d from the program: %d\n", i, sig,
             info.si_code == SI_USER && info.si_pid == getpid());
      sem_post(&acked);
    }
    pthread_join(t, NULL);
    return 0;
  }
  if (strcmp(mode, "nofile") == 0) {  /* a low descriptor limit: how many files can the program open */
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 32;
    setrlimit(RLIMIT_NOFILE, &rl);
    int opened = 0, fds[128];
    while (opened < 128) {
      int fd = open("/dev/null", O_RDONLY);
      if (fd < 0) break;
      fds[opened++] = fd;
    }
    printf("opened %d files under a limit of 32\n", opened);
    for (int i = 0; i < opened; i++) close(fds[i]);
    pthread_t t;
    pthread_create(&t, NULL, thread_work, NULL);
    pthread_join(t, NULL);
    spin(work());
    int again = 0;
    while (again < 128) {
      int fd = open("/dev/null", O_RDONLY);
      if (fd < 0) break;
      fds[again++] = fd;
    }
    printf("after work: opened %d\n", again);
    return 0;
  }
  if (strcmp(mode, "chdir") == 0) {
    mkdir("sub", 0755);
    if (chdir("sub") != 0) return 1;
    spin(work());
    int fd = create("in_sub.txt");
    put(fd, "written after chdir\n");
    close(fd);
    printf("wrote sub/in_sub.txt\n");
    return 0;
  }
  if (strcmp(mode, "threads") == 0) {  /* 1000 concurrent threads, then 1000 short-lived ones */
    enum { N = 1000 };
    pthread_t ts[N];
    long sum = 0;
    for (long i = 0; i < N; i++) pthread_create(&ts[i], NULL, thread_work, (void*)i);
    for (int i = 0; i < N; i++) {
      void* r;
      pthread_join(ts[i], &r);
      sum += (long)r;
    }
    for (long i = 0; i < 1000; i++) {
      pthread_t t;
      void* r;
      pthread_create(&t, NULL, thread_work, (void*)i);
      pthread_join(t, &r);
      sum += (long)r;
    }
    printf("%d + 1000 threads joined, sum %ld\n", N, sum);
    return 0;
  }
  if (strcmp(mode, "cancel") == 0) {  /* cancel threads blocked in each kind of call */
    pipe(cancel_pipe);
    sem_init(&cancel_sem, 0, 0);
    void* (*fns[5])(void*) = {cancel_cond_wait, cancel_sleep, cancel_read, cancel_sem_wait, cancel_spin};
    const char* names[5] = {"cond_wait", "sleep", "read", "sem_wait", "spin+testcancel"};
    pthread_t ts[5];
    for (int i = 0; i < 5; i++) pthread_create(&ts[i], NULL, fns[i], NULL);
    spin(work() / 2);
    for (int i = 0; i < 5; i++) {
      pthread_cancel(ts[i]);
      void* r;
      pthread_join(ts[i], &r);
      printf("%s: cancelled %d\n", names[i], r == PTHREAD_CANCELED);
    }
    spin(work() / 4);
    printf("cleanup handlers ran %d\n", cleanups);
    return 0;
  }
  if (strcmp(mode, "wait_signal") == 0) {  /* works until SIGINT/SIGTERM (handled) or ~10 s */
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    for (int i = 0; i < 300 && !stop_signal; i++) spin(1);
    printf("stopped by signal %d\n", (int)stop_signal);
    return 0;
  }
  if (strcmp(mode, "wait_default") == 0) {  /* works until killed by a signal, or ~10 s */
    for (int i = 0; i < 300; i++) spin(1);
    printf("not stopped\n");
    return 0;
  }
  if (strcmp(mode, "fail") == 0) {
    spin(work());
    printf("failing run\n");
    return 1;
  }
  if (strcmp(mode, "myfile") == 0) {  /* writes a 1000-byte file of its own (for RLIMIT_FSIZE) */
    int fd = create("own.txt");
    for (int i = 0; i < 20; i++) put(fd, "0123456789012345678901234567890123456789012345678\n");
    close(fd);
    spin_fine(work());
    printf("wrote own.txt\n");
    return 0;
  }
  int status = runtime_mode(mode, argc, argv);
  if (status >= 0) return status;
  status = cli_mode(mode);
  if (status >= 0) return status;
  fprintf(stderr, "unknown mode %s\n", mode);
  return 64;
}
