/* Shared by the off-CPU ground-truth programs (offcpu_*.c): a slow external party, a forked child
 * that answers over a pipe or a socket after a delay. The child is outside the profile: it makes
 * raw system calls only (no function the profiler interposes runs there, whatever the preloaded
 * runtime does after fork), and its delays are real time, so ACC_SPEEDUP shortens the parent's
 * wait by really shortening the child's delay. The parent stops the child (kill and waitpid) at
 * exit and exits non-zero with a message if the child goes away (a read() returning 0). */
#ifndef OFFCPU_H
#define OFFCPU_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static pid_t offcpu_child = -1;

/* ACC_SPEEDUP, 0-1: the fraction of the external delay removed. */
static inline double offcpu_speedup(void) {
  const char* s = getenv("ACC_SPEEDUP");
  return s ? atof(s) : 0.0;
}

/* In the child: raw system calls, never the (possibly interposed) libc wrappers. */
static inline long offcpu_raw_read(int fd, void* buf, size_t n) {
  return syscall(SYS_read, fd, buf, n);
}

static inline long offcpu_raw_write(int fd, const void* buf, size_t n) {
  return syscall(SYS_write, fd, buf, n);
}

static inline void offcpu_raw_nanosleep(long long ns) {
  struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  syscall(SYS_nanosleep, &t, NULL);
}

/* In the child: sleeps until `ns` after `since` (a CLOCK_MONOTONIC time, 0 for now), less the
 * sleep's measured overshoot (after a minimal timer slack), so the delay is about what ACC_SPEEDUP
 * makes it. A request carries its send time: the answer then comes `ns` after the request however
 * late the child woke to read it (on two cores it can wait for the parent's busy threads), and the
 * parent's wait scales with ACC_SPEEDUP. */
static inline void offcpu_child_delay(unsigned long long since, long long ns) {
  static long long overshoot = -1;
  if (overshoot < 0) {
    long long total = 0;
    for (int i = 0; i < 20; i++) {
      unsigned long long before = bench_now_ns();
      offcpu_raw_nanosleep(300000);
      total += (long long)(bench_now_ns() - before) - 300000;
    }
    overshoot = total / 20;
  }
  if (since) ns -= (long long)(bench_now_ns() - since);
  if (ns > overshoot) offcpu_raw_nanosleep(ns - overshoot);
}

/* Stops the child: kill and reap. */
static inline void offcpu_stop(void) {
  if (offcpu_child > 0) {
    kill(offcpu_child, SIGKILL);
    waitpid(offcpu_child, NULL, 0);
    offcpu_child = -1;
  }
}

/* Starts the child running `serve(arg)` (then exiting); call before creating any thread. The
 * child measures its sleep's overshoot before it reports ready, so the first request pays no
 * calibration. It dies with the parent (PR_SET_PDEATHSIG, and EOF or EPIPE on its descriptors).
 * The parent ignores SIGPIPE, so a write to a dead child fails with EPIPE instead of killing it. */
static inline void offcpu_start(void (*serve)(void*), void* arg) {
  int ready[2];
  if (pipe(ready)) {
    perror("pipe");
    exit(2);
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(2);
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_TIMERSLACK, 1ul);
    close(ready[0]);
    offcpu_child_delay(0, 0);
    char c = 1;
    offcpu_raw_write(ready[1], &c, 1);
    close(ready[1]);
    serve(arg);
    _exit(0);
  }
  offcpu_child = pid;
  signal(SIGPIPE, SIG_IGN);
  close(ready[1]);
  char c;
  if (read(ready[0], &c, 1) != 1) {
    fprintf(stderr, "the external process did not start\n");
    offcpu_stop();
    exit(2);
  }
  close(ready[0]);
}

/* In the parent: a timespec for nanosleep(2) that sleeps about `ns`, less the usual overshoot
 * (measured once with nanosleep, as bench_wait does), so the sleep's length scales with
 * ACC_SPEEDUP. */
static inline struct timespec offcpu_sleep_spec(long long ns) {
  static long long overshoot = -1;
  if (overshoot < 0) {
    long long total = 0;
    for (int i = 0; i < 20; i++) {
      struct timespec t = {0, 300000};
      unsigned long long before = bench_now_ns();
      nanosleep(&t, NULL);
      total += (long long)(bench_now_ns() - before) - 300000;
    }
    overshoot = total / 20;
  }
  ns = ns > overshoot ? ns - overshoot : 0;
  struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  return t;
}

/* The parent's check of a read/write/recv/send result: the whole message or exit non-zero. */
static inline void offcpu_check(long got, size_t want, const char* what) {
  if (got == (long)want) return;
  if (got == 0)
    fprintf(stderr, "%s: the external process went away (end of file)\n", what);
  else if (got < 0)
    fprintf(stderr, "%s: %s\n", what, strerror(errno));
  else
    fprintf(stderr, "%s: short transfer (%ld of %zu bytes)\n", what, got, want);
  offcpu_stop();
  exit(1);
}

#endif
