/* Four workers share two permits of a semaphore; each item is marked work done under a permit
 * plus a little unmarked work outside it. */
#include <pthread.h>
#include <semaphore.h>

#include "bench.h"

enum { kWorkers = 4, kItemsPerWorker = 1500 };
static sem_t permits;
static long marked_n;

static void* worker(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (int i = 0; i < kItemsPerWorker; i++) {
    sem_wait(&permits);
    BENCH_SPIN(v, marked_n); /* MARKED */
    sem_post(&permits);
    BENCH_SPIN(v, 60000);
    COZ_PROGRESS_NAMED("item");
  }
  return (void*)v;
}

int main(void) {
  marked_n = bench_marked(240000);
  sem_init(&permits, 0, 2);
  unsigned long long start = bench_now_ns();
  pthread_t t[kWorkers];
  for (long i = 0; i < kWorkers; i++) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  unsigned long sink = 0;
  for (int i = 0; i < kWorkers; i++) {
    void* r;
    pthread_join(t[i], &r);
    sink ^= (unsigned long)r;
  }
  bench_report(start, kWorkers * kItemsPerWorker, sink);
  return 0;
}
