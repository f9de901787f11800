/* Two threads hand a token back and forth through a futex word of their own, waiting and waking
 * with syscall(SYS_futex, ...) as Rust's standard library, parking_lot and libstdc++ do. Each
 * round the main thread runs line A and the other thread line B, one after the other: one serial
 * critical path. With "fork" as argument 2 the other party is a forked child instead, and the
 * word a shared futex (FUTEX_PRIVATE_FLAG clear) in memory both processes map. Runs `ms`
 * milliseconds of real time (argument 1, default 1500), then prints
 * "rounds N ns T" (the real time the rounds took). First it checks that syscall() gives the
 * kernel's answers unchanged (a futex wait that does not block, one that times out, a call with
 * no such number, a plain call) and prints which of them did. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coz.h"
#include "fixture_work.h"

static atomic_int own_turn;
static atomic_int* turn = &own_turn; /* 0: the main thread's, 1: the other's, 2: stop */
static int wait_op = FUTEX_WAIT_PRIVATE, wake_op = FUTEX_WAKE_PRIVATE;
static volatile unsigned long sink;

static void wait_while(int value) {
  while (atomic_load(turn) == value) {
    syscall(SYS_futex, turn, wait_op, value, NULL, NULL, 0);
  }
}

static void hand_to(int value) {
  atomic_store(turn, value);
  syscall(SYS_futex, turn, wake_op, 1, NULL, NULL, 0);
}

static void* other(void* arg) {
  unsigned long v = (unsigned long)arg, n = work_scaled(80000);
  for (;;) {
    wait_while(0);
    if (atomic_load(turn) == 2) break;
    for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:b */
    hand_to(0);
  }
  sink = v;
  return NULL;
}

/* The kernel's answers through syscall(), each as "name:ok" or "name:rc/errno". */
static void check_answers(void) {
  static atomic_int word = 5;
  struct timespec ms = {0, 1000000};
  struct {
    long rc;
    int err;
  } c[4];
  errno = 0;
  c[0].rc = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 6, NULL, NULL, 0);
  c[0].err = errno;
  c[1].rc = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 5, &ms, NULL, 0);
  c[1].err = errno;
  c[2].rc = syscall(-1L);
  c[2].err = errno;
  errno = 0;
  c[3].rc = syscall(SYS_getpid);
  c[3].err = errno;
  const char* names[4] = {"eagain", "timeout", "enosys", "getpid"};
  long want_rc[4] = {-1, -1, -1, (long)getpid()};
  int want_err[4] = {EAGAIN, ETIMEDOUT, ENOSYS, 0};
  if (c[1].err == EINTR) {
    c[1].err = ETIMEDOUT; /* a signal (a sample's) may end a timed wait early, as natively */
  }
  for (int i = 0; i < 4; i++) {
    if (c[i].rc == want_rc[i] && c[i].err == want_err[i]) {
      printf("%s:ok ", names[i]);
    } else {
      printf("%s:%ld/%d ", names[i], c[i].rc, c[i].err);
    }
  }
  printf("\n");
}

int main(int argc, char** argv) {
  double ms = argc > 1 ? atof(argv[1]) : 1500;
  check_answers();
  int forked = argc > 2 && strcmp(argv[2], "fork") == 0;
  pthread_t t;
  pid_t child = 0;
  if (forked) {
    turn = mmap(NULL, sizeof *turn, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    wait_op = FUTEX_WAIT;
    wake_op = FUTEX_WAKE;
    fflush(stdout);
    if ((child = fork()) == 0) {
      other((void*)7);
      _exit(0);
    }
  } else {
    pthread_create(&t, NULL, other, (void*)7);
  }
  struct budget b = budget_on(CLOCK_MONOTONIC, ms);
  long long start = work_clock_ns(CLOCK_MONOTONIC);
  unsigned long v = 3, n = work_scaled(20000), rounds = 0;
  while (budget_left(&b)) {
    for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:a */
    hand_to(1);
    wait_while(1);
    COZ_PROGRESS_NAMED("round");
    rounds++;
  }
  long long ns = work_clock_ns(CLOCK_MONOTONIC) - start;
  hand_to(2);
  if (forked) {
    waitpid(child, NULL, 0);
  } else {
    pthread_join(t, NULL);
  }
  sink = v;
  fprintf(stderr, "rounds %lu ns %lld\n", rounds, ns);
  return 0;
}
