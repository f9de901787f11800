/* A semaphore lets two of four workers run at once; a barrier lines the workers up each round. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#include "coz.h"

enum { kWorkers = 4, kRounds = 200 };
static sem_t slots;
static pthread_barrier_t barrier;
static unsigned long results[kWorkers];
static int serial_count;

static void* worker(void* arg) {
  long id = (long)arg;
  unsigned long v = (unsigned long)id;
  for (int r = 0; r < kRounds; r++) {
    sem_wait(&slots);
    for (int k = 0; k < 200000; k++) v = v * 2654435761ul + (unsigned long)k;
    sem_post(&slots);
    if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) {
      serial_count++;
      COZ_PROGRESS_NAMED("round");
    }
  }
  results[id] = v;
  return NULL;
}

int main(void) {
  sem_init(&slots, 0, 2);
  pthread_barrier_init(&barrier, NULL, kWorkers);
  pthread_t t[kWorkers];
  for (long i = 0; i < kWorkers; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < kWorkers; i++) pthread_join(t[i], NULL);
  unsigned long x = 0;
  for (int i = 0; i < kWorkers; i++) x ^= results[i];
  printf("rounds %d result %lx\n", serial_count, x);
  return 0;
}
