/* Threads: one started by a library constructor before the runtime's own constructor can run
 * (early_thread.c), and workers started from main. Each spins on its own line for 150 ms of its
 * CPU time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "coz.h"
#include "fixture_work.h"

extern void early_thread_join(void);

volatile unsigned long worker_sink;

__attribute__((noinline)) static unsigned long spin(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:worker */
  return v;
}

static void* worker(void* arg) {
  worker_sink = spin_for(spin, 100000, 150, (unsigned long)arg);
  COZ_PROGRESS_NAMED("worker done");
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) {
    if (pthread_create(&t[i], NULL, worker, (void*)(i + 1)) != 0) {
      return 1;
    }
  }
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
  }
  early_thread_join();
  printf("threads done\n");
  return 0;
}
