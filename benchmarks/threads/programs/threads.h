/* Shared by the thread-scale programs: a fixed amount of CPU work per thread, with a progress
 * point, and a checksum that depends only on the work, so any profiler can be checked to leave
 * the output unchanged. */
#ifndef THREADS_H
#define THREADS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coz.h"

/* Small stacks, so that 10,000 threads fit in memory: each thread here needs only a few KiB. */
#define THREADS_STACK_BYTES (128 * 1024)

/* `rounds` rounds of a dependent multiply chain, one progress visit per round. */
static inline unsigned long threads_work(unsigned long seed, long rounds, long per_round) {
  unsigned long v = seed;
  for (long r = 0; r < rounds; r++) {
    for (long i = 0; i < per_round; i++) {
      v = v * 2654435761ul + (unsigned long)i;
    }
    COZ_PROGRESS_NAMED("round");
  }
  return v;
}

static inline unsigned long long threads_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static inline long threads_arg(int argc, char** argv, int i, long fallback) {
  return argc > i ? atol(argv[i]) : fallback;
}

static inline void threads_attr(pthread_attr_t* attr) {
  pthread_attr_init(attr);
  if (pthread_attr_setstacksize(attr, THREADS_STACK_BYTES) != 0) {
    fprintf(stderr, "pthread_attr_setstacksize failed\n");
    exit(3);
  }
}

static inline void threads_create(pthread_t* t, pthread_attr_t* attr, void* (*f)(void*), void* arg) {
  int rc = pthread_create(t, attr, f, arg);
  if (rc != 0) {
    fprintf(stderr, "pthread_create: %s\n", strerror(rc));
    exit(4);
  }
}

#endif
