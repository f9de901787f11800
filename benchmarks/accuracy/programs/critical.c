/* Two workers with private work and a mutex-protected critical section three times as long:
 * the critical section (marked) bounds throughput until it gets shorter than the private work. */
#include <pthread.h>

#include "bench.h"

enum { kItemsPerWorker = 8000 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared_state = 1;
static long critical_n;

static void* worker(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (int i = 0; i < kItemsPerWorker; i++) {
    BENCH_SPIN(v, 12000);
    pthread_mutex_lock(&lock);
    BENCH_SPIN(shared_state, critical_n); /* MARKED */
    pthread_mutex_unlock(&lock);
    COZ_PROGRESS_NAMED("item");
  }
  return (void*)v;
}

int main(void) {
  critical_n = bench_marked(36000);
  unsigned long long start = bench_now_ns();
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  bench_report(start, 2 * kItemsPerWorker, shared_state);
  return 0;
}
