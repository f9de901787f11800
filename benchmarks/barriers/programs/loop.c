/* A data-parallel loop: each round, BR_THREADS threads process their share of the points (line a
 * and line b per point) and meet before the next round, as PARSEC's streamcluster, an OpenMP
 * `parallel for` or a fork-join over a thread pool do. WAY picks how they meet:
 *   1 pthread_barrier_wait
 *   2 a mutex + condition-variable barrier (PARSEC's parsec_barrier)
 *   3 a barrier that spins for up to 0.1 ms, then blocks on a condition variable
 *   4 a thread pool: the main thread hands each round's chunks to the workers through a queue and
 *     waits until they are all done (mutex + condition variables)
 *   5 an OpenMP `parallel for` (build with -fopenmp; gcc's libgomp parks its threads with its
 *     own futex calls)
 * Environment: BR_THREADS (default 2), BR_POINTS (points per round, default 2048), BR_SECONDS (run
 * length, default 2), BR_A_SHARE and BR_B_SHARE (the share of each line's work kept, default 1:
 * the ground truth of a line made faster). Prints elapsed_ns and visits (rounds). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"

#ifndef WAY
#define WAY 1
#endif

enum { kStepsA = 200, kStepsB = 200 };
static int threads;
static long points;
static long steps_a, steps_b;
static unsigned long long deadline;
static atomic_int stop;
static atomic_ulong last_round = ~0ul; /* the round after which the meeting threads stop */

static unsigned long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static double env_or(const char* name, double fallback) {
  const char* s = getenv(name);
  return s && *s ? atof(s) : fallback;
}

/* One thread's share of a round: a dependent multiply chain per line, so its time is
 * proportional to the steps whatever the code's alignment. */
static unsigned long chunk(int id, unsigned long v) {
  long first = points * id / threads, last = points * (id + 1) / threads;
  for (long p = first; p < last; p++) {
    for (long i = 0; i < steps_a; i++) v = v * 2654435761ul ^ (unsigned long)i; /* line a */
    for (long i = 0; i < steps_b; i++) v = v * 2246822519ul ^ (unsigned long)i; /* line b */
  }
  return v;
}

/* The main thread's part after each round: the progress point, and whether time is up. */
static unsigned long rounds;
static void round_done(void) {
  COZ_PROGRESS_NAMED("round");
  if (now_ns() >= deadline) {
    atomic_store(&last_round, rounds);
    atomic_store(&stop, 1);
  }
  rounds++;
}

#if WAY == 1 || WAY == 2 || WAY == 3
#if WAY == 1
static pthread_barrier_t barrier;
static void meet(void) { pthread_barrier_wait(&barrier); }
#else
static struct {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int waiting;
  atomic_uint generation;
} bar = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
static void meet(void) {
  pthread_mutex_lock(&bar.mutex);
  unsigned generation = atomic_load(&bar.generation);
  if (++bar.waiting == threads) {
    bar.waiting = 0;
    atomic_store(&bar.generation, generation + 1);
    pthread_cond_broadcast(&bar.cond);
    pthread_mutex_unlock(&bar.mutex);
    return;
  }
#if WAY == 3
  pthread_mutex_unlock(&bar.mutex);
  unsigned long long spin_start = now_ns();
  while (now_ns() - spin_start < 100000) {
    if (atomic_load_explicit(&bar.generation, memory_order_acquire) != generation) return;
    __builtin_ia32_pause();
  }
  pthread_mutex_lock(&bar.mutex);
#endif
  while (atomic_load(&bar.generation) == generation) pthread_cond_wait(&bar.cond, &bar.mutex);
  pthread_mutex_unlock(&bar.mutex);
}
#endif

static void* worker(void* arg) {
  int id = (int)(long)arg;
  unsigned long v = (unsigned long)id + 1;
  for (unsigned long round = 0;; round++) {
    v = chunk(id, v);
    if (id == 0) round_done();
    meet(); /* thread 0 set last_round before this meeting if this is the last round */
    if (round >= atomic_load(&last_round)) break;
  }
  return (void*)v;
}

static unsigned long run(void) {
#if WAY == 1
  pthread_barrier_init(&barrier, NULL, (unsigned)threads);
#endif
  pthread_t t[64];
  for (long i = 1; i < threads; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  unsigned long sink = (unsigned long)worker((void*)0);
  for (int i = 1; i < threads; i++) {
    void* r;
    pthread_join(t[i], &r);
    sink ^= (unsigned long)r;
  }
  return sink;
}

#elif WAY == 4
static struct {
  pthread_mutex_t mutex;
  pthread_cond_t work, done;
  int next_chunk, remaining;
  unsigned long sink;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static void* pool_worker(void* arg) {
  unsigned long v = (unsigned long)arg + 1;
  pthread_mutex_lock(&pool.mutex);
  for (;;) {
    while (pool.next_chunk == threads && !atomic_load(&stop)) pthread_cond_wait(&pool.work, &pool.mutex);
    if (pool.next_chunk == threads) break; /* stopped */
    int id = pool.next_chunk++;
    pthread_mutex_unlock(&pool.mutex);
    v = chunk(id, v);
    pthread_mutex_lock(&pool.mutex);
    if (--pool.remaining == 0) pthread_cond_signal(&pool.done);
  }
  pool.sink ^= v;
  pthread_mutex_unlock(&pool.mutex);
  return NULL;
}

static unsigned long run(void) {
  pthread_t t[64];
  pool.next_chunk = threads; /* nothing to do yet */
  for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, pool_worker, (void*)i);
  while (!atomic_load(&stop)) {
    pthread_mutex_lock(&pool.mutex);
    pool.next_chunk = 0;
    pool.remaining = threads;
    pthread_cond_broadcast(&pool.work);
    while (pool.remaining > 0) pthread_cond_wait(&pool.done, &pool.mutex);
    pthread_mutex_unlock(&pool.mutex);
    round_done();
  }
  pthread_mutex_lock(&pool.mutex);
  pthread_cond_broadcast(&pool.work);
  pthread_mutex_unlock(&pool.mutex);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  return pool.sink;
}

#elif WAY == 5
#include <omp.h>
static unsigned long run(void) {
  unsigned long sink = 0;
  unsigned long v[64];
  for (int i = 0; i < threads; i++) v[i] = (unsigned long)i + 1;
  while (!atomic_load(&stop)) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int id = 0; id < threads; id++) v[id] = chunk(id, v[id]);
    round_done();
  }
  for (int i = 0; i < threads; i++) sink ^= v[i];
  return sink;
}
#endif

int main(void) {
  threads = (int)env_or("BR_THREADS", 2);
  if (threads < 1 || threads > 64) threads = 2;
  points = (long)env_or("BR_POINTS", 2048);
  steps_a = (long)(kStepsA * env_or("BR_A_SHARE", 1) + 0.5);
  steps_b = (long)(kStepsB * env_or("BR_B_SHARE", 1) + 0.5);
  unsigned long long start = now_ns();
  deadline = start + (unsigned long long)(env_or("BR_SECONDS", 2) * 1e9);
  unsigned long sink = run();
  printf("elapsed_ns %llu visits %lu sink %lu\n", now_ns() - start, rounds, sink & 1);
  return 0;
}
