/* Shared by the false-line programs: each runs FL_SECONDS (default 10) of real time, its main
 * work counted by one progress point, beside a line marked NONE that cannot change the
 * program's speed. FL_NONE_SHARE (0-1, default 1) keeps that share of the NONE line's work, to
 * measure natively that it changes nothing (run.py's TRUTH=1). Busy work is a dependent
 * multiply chain (BENCH_SPIN). */
#ifndef FL_SHAPES_H
#define FL_SHAPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"

#define BENCH_SPIN(v, n) \
  for (long bench_i = 0; bench_i < (n); bench_i++) (v) = (v) * 2654435761ul + (unsigned long)bench_i

static inline unsigned long long fl_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static inline double fl_env(const char* name, double fallback) {
  const char* s = getenv(name);
  return s && *s ? atof(s) : fallback;
}

/* The NONE line's iterations, less what FL_NONE_SHARE removes. */
static inline long fl_none(long iterations) {
  return (long)((double)iterations * fl_env("FL_NONE_SHARE", 1.0) + 0.5);
}

static inline unsigned long long fl_deadline(void) {
  return fl_now_ns() + (unsigned long long)(fl_env("FL_SECONDS", 10.0) * 1e9);
}

static volatile unsigned long fl_sink;

/* The main thread's work: items of a fixed cost, each counted, until `end`; returns how many. */
static inline unsigned long long fl_items(unsigned long* seed, unsigned long long end) {
  unsigned long long visits = 0;
  unsigned long v = *seed;
  while (fl_now_ns() < end) {
    BENCH_SPIN(v, 20000); /* WORK */
    COZ_PROGRESS_NAMED("item");
    visits++;
  }
  *seed = v;
  return visits;
}

static inline void fl_report(unsigned long long start, unsigned long long visits, unsigned long v) {
  fl_sink = v;
  printf("elapsed_ns %llu visits %llu\n", fl_now_ns() - start, visits);
}

/* The main thread's items until the deadline, beside one thread running `side` until `*done`;
 * prints the report. For the shapes whose main thread never waits for the other. */
static inline int fl_items_beside(void* (*side)(void*), atomic_int* done) {
  unsigned long long start = fl_now_ns(), end = fl_deadline();
  pthread_t t;
  pthread_create(&t, NULL, side, (void*)3);
  unsigned long v = 1;
  unsigned long long visits = fl_items(&v, end);
  atomic_store(done, 1);
  pthread_join(t, NULL);
  fl_report(start, visits, v);
  return 0;
}

#endif
