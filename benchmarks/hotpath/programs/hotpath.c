/* Per-operation costs of the profiler's hot paths: `hotpath OP SECONDS` runs one operation in a
 * loop for SECONDS of wall time and prints what one operation took on average.
 *   lock      one thread: an uncontended pthread_mutex_lock/unlock pair
 *   handover  two threads taking one mutex around a short section; also how often the lock
 *             changed hands per 1,000 acquisitions (a late hand-over keeps it with one thread)
 *   condvar   two threads passing a turn back and forth: a signal/wait round trip
 *   barrier   two threads meeting at a pthread barrier: one round
 *   syscall   one thread: syscall(SYS_getppid), a system call through glibc's syscall() that is
 *             not a futex (the hook passes it straight through)
 *   wake      one thread: an uncontended futex wake through syscall() (no waiter; the hook
 *             publishes the thread's count as a condition variable's signal does)
 *   futex     two threads passing a turn back and forth through futex waits and wakes made with
 *             syscall(), as Rust's std parks threads: a round trip
 *   read      one thread: a one-byte read() of /dev/zero, which never waits (the wait hooks'
 *             fast path)
 *   sample    one thread reading the clock: every gap longer than kGapNs is an interruption
 *             (a sample's signal, a timer tick, the hypervisor); prints gaps per second and
 *             their total time per second
 * A line no operation runs is marked COLD: experiments on it pay no delays (the hooks' cost in
 * a speedup experiment).
 * Output: one line `op=... ops=N ns_per_op=X [handovers_per_1000=H] [gaps_per_s=G gap_ns_per_s=T]`. */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coz.h"

enum { kGapNs = 400 };

static double seconds;
static atomic_int stop;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static unsigned long counts[2];
static int last_owner = -1;
static unsigned long handovers;
static int turn;

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void* handover_worker(void* arg) {
  int me = (int)(long)arg;
  unsigned long n = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    pthread_mutex_lock(&mutex);
    if (last_owner != me) {
      handovers++;
      last_owner = me;
    }
    n++;
    pthread_mutex_unlock(&mutex);
  }
  counts[me] = n;
  COZ_PROGRESS;
  return NULL;
}

static void* condvar_worker(void* arg) {
  int me = (int)(long)arg;
  unsigned long n = 0;
  pthread_mutex_lock(&mutex);
  for (;;) {
    while (turn != me && turn >= 0) pthread_cond_wait(&cond, &mutex);
    if (turn < 0) break;
    n++;
    turn = atomic_load_explicit(&stop, memory_order_relaxed) ? -1 : 1 - me;
    pthread_cond_signal(&cond);
  }
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mutex);
  counts[me] = n;
  return NULL;
}

static atomic_int futex_turn;

static void* futex_worker(void* arg) {
  int me = (int)(long)arg;
  unsigned long n = 0;
  for (;;) {
    int t;
    while ((t = atomic_load(&futex_turn)) != me && t >= 0) {
      syscall(SYS_futex, &futex_turn, FUTEX_WAIT_PRIVATE, t, NULL, NULL, 0);
    }
    if (t < 0) break;
    n++;
    atomic_store(&futex_turn, atomic_load_explicit(&stop, memory_order_relaxed) ? -1 : 1 - me);
    syscall(SYS_futex, &futex_turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  }
  counts[me] = n;
  return NULL;
}

static int quit;

static void* barrier_worker(void* arg) {
  int me = (int)(long)arg;
  unsigned long n = 0;
  for (;;) {
    /* One thread decides for both whether to stop; the second wait makes its decision seen. */
    if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) {
      quit = atomic_load_explicit(&stop, memory_order_relaxed);
    }
    pthread_barrier_wait(&barrier);
    if (quit) break;
    n++;
  }
  counts[me] = n;
  return NULL;
}

/* Runs two workers for `seconds`; returns the operations counted (by `per_op` of the threads). */
static unsigned long two_threads(void* (*worker)(void*), int both) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
  atomic_store(&stop, 1);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  return both ? counts[0] + counts[1] : counts[0];
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: hotpath lock|handover|condvar|futex|barrier|syscall|wake|read|sample SECONDS\n"); /* COLD */
    return 2;
  }
  const char* op = argv[1];
  seconds = atof(argv[2]);
  unsigned long long start = now_ns(), deadline = start + (unsigned long long)(seconds * 1e9);
  unsigned long ops = 0;
  char extra[128] = "";
  if (strcmp(op, "lock") == 0) {
    unsigned long long t = start;
    while (t < deadline) {
      for (int i = 0; i < 1024; i++) {
        pthread_mutex_lock(&mutex);
        ops++;
        pthread_mutex_unlock(&mutex);
      }
      t = now_ns();
      COZ_PROGRESS;
    }
  } else if (strcmp(op, "handover") == 0) {
    ops = two_threads(handover_worker, 1);
    snprintf(extra, sizeof extra, " handovers_per_1000=%.1f", 1000.0 * handovers / (ops ? ops : 1));
  } else if (strcmp(op, "condvar") == 0) {
    ops = two_threads(condvar_worker, 1) / 2; /* a round trip is two passes */
  } else if (strcmp(op, "futex") == 0) {
    ops = two_threads(futex_worker, 1) / 2; /* a round trip is two passes */
  } else if (strcmp(op, "syscall") == 0 || strcmp(op, "wake") == 0 || strcmp(op, "read") == 0) {
    static atomic_int word;
    int fd = open("/dev/zero", O_RDONLY);
    char byte;
    unsigned long long t = start;
    while (t < deadline) {
      for (int i = 0; i < 1024; i++) {
        if (op[0] == 's') {
          syscall(SYS_getppid);
        } else if (op[0] == 'w') {
          syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        } else if (read(fd, &byte, 1) != 1) {
          return 1;
        }
        ops++;
      }
      t = now_ns();
      COZ_PROGRESS;
    }
    close(fd);
  } else if (strcmp(op, "barrier") == 0) {
    pthread_barrier_init(&barrier, NULL, 2);
    ops = two_threads(barrier_worker, 0) * 2; /* two barrier_waits per counted round */
  } else if (strcmp(op, "sample") == 0) {
    unsigned long long t = start, gaps = 0, gap_ns = 0;
    while (t < deadline) {
      unsigned long long next = now_ns();
      if (next - t > kGapNs) {
        gaps++;
        gap_ns += next - t;
      }
      t = next;
      ops++;
    }
    double s = (t - start) / 1e9;
    snprintf(extra, sizeof extra, " gaps_per_s=%.1f gap_ns_per_s=%.0f", gaps / s, gap_ns / s);
  } else {
    fprintf(stderr, "hotpath: unknown operation '%s'\n", op);
    return 2;
  }
  unsigned long long elapsed = now_ns() - start;
  printf("op=%s ops=%lu ns_per_op=%.2f%s\n", op, ops, ops ? (double)elapsed / ops : 0.0, extra);
  return 0;
}
