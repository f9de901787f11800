/* A library whose constructor starts a thread: it exists before the profiler's constructor runs.
 * The thread spins for 150 ms of its CPU time. */
#include <pthread.h>

#include "fixture_work.h"

static pthread_t early;
volatile unsigned long early_sink;

__attribute__((noinline)) static unsigned long spin(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:early */
  return v;
}

static void* early_spin(void* arg) {
  early_sink = spin_for(spin, 100000, 150, 3);
  return arg;
}

__attribute__((constructor)) static void start_early_thread(void) {
  pthread_create(&early, 0, early_spin, 0);
}

void early_thread_join(void) { pthread_join(early, 0); }
