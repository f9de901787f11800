/* A semaphore lets two of four workers run at once; a barrier lines the workers up each round.
 * Rounds go on until the process has used 150 ms of CPU time, and every worker stops after the
 * same round. Prints whether every worker did every round. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#include "coz.h"
#include "fixture_work.h"

enum { kWorkers = 4 };
static sem_t slots;
static pthread_barrier_t barrier;
static struct budget budget;
static volatile unsigned long sink;
static int rounds_done[kWorkers];
static int serial_count, stop;

static void* worker(void* arg) {
  long id = (long)arg;
  unsigned long v = (unsigned long)id, n = work_scaled(200000);
  while (!stop) {
    sem_wait(&slots);
    for (unsigned long k = 0; k < n; k++) v = v * 2654435761ul + k;
    sem_post(&slots);
    rounds_done[id]++;
    if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) {
      serial_count++;
      COZ_PROGRESS_NAMED("round");
      stop = !budget_left(&budget);
    }
    pthread_barrier_wait(&barrier); /* every worker reads the same stop */
  }
  sink = v;
  return NULL;
}

int main(void) {
  sem_init(&slots, 0, 2);
  pthread_barrier_init(&barrier, NULL, kWorkers);
  budget = budget_on(CLOCK_PROCESS_CPUTIME_ID, 150);
  pthread_t t[kWorkers];
  for (long i = 0; i < kWorkers; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < kWorkers; i++) pthread_join(t[i], NULL);
  int every = serial_count > 0;
  for (int i = 0; i < kWorkers; i++) every = every && rounds_done[i] == serial_count;
  printf("every worker did every round: %d\n", every);
  return 0;
}
