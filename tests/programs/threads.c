/* Threads: one started by a library constructor before the runtime's own constructor can run
 * (early_thread.c), and workers started from main. Each spins on its own line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "coz.h"

extern void early_thread_join(void);

volatile unsigned long worker_sink;

__attribute__((noinline)) static void* worker(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (unsigned long i = 0; i < 150000000ul; i++) v = v * 2654435761ul + i; /* LINE:worker */
  worker_sink = v;
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
