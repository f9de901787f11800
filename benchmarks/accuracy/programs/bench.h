/* Shared by the ground-truth programs. ACC_SPEEDUP (0-1) removes that fraction of the work on
 * the line marked MARKED, for the real effect; the profiler's runs keep it at 0. Each program
 * prints its own elapsed time and progress visits. */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"

static inline unsigned long long bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* Iterations left on the marked line after removing ACC_SPEEDUP of them. */
static inline long bench_marked(long iterations) {
  const char* s = getenv("ACC_SPEEDUP");
  double speedup = s ? atof(s) : 0.0;
  return (long)((double)iterations * (1.0 - speedup) + 0.5);
}

/* A dependent multiply chain: its time is proportional to n whatever the code alignment. */
#define BENCH_SPIN(v, n)                                            \
  for (long bench_i = 0; bench_i < (n); bench_i++) (v) = (v) * 2654435761ul + (unsigned long)bench_i

/* Sleeps `ns`, less nanosleep's usual overshoot on this machine (measured once), so short
 * periods are about right. Only relative sleeps: a program that waits for clock deadlines would
 * absorb the pauses a profiler inserts, and no virtual speedup could show through it. */
static inline void bench_wait(unsigned long long ns) {
  static long long overshoot = -1;
  if (overshoot < 0) {
    unsigned long long total = 0;
    for (int i = 0; i < 20; i++) {
      struct timespec t = {0, 300000};
      unsigned long long before = bench_now_ns();
      nanosleep(&t, NULL);
      total += bench_now_ns() - before - 300000;
    }
    overshoot = (long long)(total / 20);
  }
  if ((long long)ns > overshoot) {
    struct timespec t = {0, (long)((long long)ns - overshoot)};
    nanosleep(&t, NULL);
  }
}

/* A positive number from ACC_name (the real-world knob), or `fallback`. */
static inline double bench_env(const char* name, double fallback) {
  const char* s = getenv(name);
  return s && atof(s) > 0 ? atof(s) : fallback;
}

static inline void bench_report(unsigned long long start, unsigned long long visits, unsigned long sink) {
  printf("elapsed_ns %llu visits %llu sink %lu\n", bench_now_ns() - start, visits, sink & 1);
}

#endif
