/* A data-parallel loop: two threads each run line a and then line b on their half of a round's
 * work and meet at a pthread barrier before the next round, as PARSEC's kernels and an OpenMP
 * `parallel for` do. The first thread counts rounds with a progress point. Runs `ms` milliseconds
 * of real time (argument 1, default 1500); every thread stops after the same round. With "openmp"
 * as argument 2 (a build with -fopenmp) the rounds are an OpenMP `parallel for` instead. Prints
 * "rounds N". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coz.h"
#include "fixture_work.h"

static pthread_barrier_t barrier;
static struct budget budget;
static atomic_ulong last_round = ~0ul; /* the round after which both threads stop */
static unsigned long rounds, n;
static volatile unsigned long sink;

static unsigned long half_round(unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul ^ i; /* LINE:a */
  for (unsigned long i = 0; i < n; i++) v = v * 2246822519ul ^ i; /* LINE:b */
  return v;
}

static void* worker(void* arg) {
  long id = (long)arg;
  unsigned long v = (unsigned long)id + 1;
  for (unsigned long round = 0;; round++) {
    v = half_round(v);
    if (id == 0) {
      COZ_PROGRESS_NAMED("round");
      if (!budget_left(&budget)) atomic_store(&last_round, round);
      rounds++;
    }
    pthread_barrier_wait(&barrier); /* last_round is set before this meeting if this round is it */
    if (round >= atomic_load(&last_round)) break;
  }
  sink = v;
  return NULL;
}

#ifdef _OPENMP
static void openmp_rounds(void) {
  unsigned long v[2] = {1, 2};
  while (budget_left(&budget)) {
#pragma omp parallel for num_threads(2)
    for (int id = 0; id < 2; id++) v[id] = half_round(v[id]);
    COZ_PROGRESS_NAMED("round");
    rounds++;
  }
  sink = v[0] ^ v[1];
}
#endif

int main(int argc, char** argv) {
  budget = budget_on(CLOCK_MONOTONIC, argc > 1 ? atof(argv[1]) : 1500);
  n = work_scaled(150000);
#ifdef _OPENMP
  if (argc > 2 && strcmp(argv[2], "openmp") == 0) {
    openmp_rounds();
    printf("rounds %lu\n", rounds);
    return 0;
  }
#endif
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t other;
  pthread_create(&other, NULL, worker, (void*)1);
  worker((void*)0);
  pthread_join(other, NULL);
  printf("rounds %lu\n", rounds);
  return 0;
}
