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

/* Waits `ns` from now: sleeps most of it, then spins, so short periods are accurate (nanosleep
 * alone overshoots by 50-100 us here). Relative to now, so a pause the profiler inserted before
 * the call delays every later arrival, as a slower thread would. */
static inline void bench_wait(unsigned long long ns) {
  unsigned long long until = bench_now_ns() + ns;
  if (ns > 150000) {
    struct timespec t = {0, (long)(ns - 120000)};
    nanosleep(&t, NULL);
  }
  while (bench_now_ns() < until) {
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
