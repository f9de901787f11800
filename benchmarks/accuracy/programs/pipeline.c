/* Two-stage pipeline over a bounded queue with condition variables. The first stage (marked) is
 * the slower one, until it is made more than 37.5% faster. */
#include <pthread.h>

#include "bench.h"

enum { kCapacity = 16, kItems = 20000 };
static unsigned long queue[kCapacity];
static int head, count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static long produce_n;

static void* producer(void* arg) {
  (void)arg;
  for (unsigned long i = 0; i < kItems; i++) {
    unsigned long v = i;
    BENCH_SPIN(v, produce_n); /* MARKED */
    pthread_mutex_lock(&lock);
    while (count == kCapacity) pthread_cond_wait(&not_full, &lock);
    queue[(head + count++) % kCapacity] = v;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  produce_n = bench_marked(40000);
  unsigned long sink = 0;
  unsigned long long start = bench_now_ns();
  pthread_t p;
  pthread_create(&p, NULL, producer, NULL);
  for (int i = 0; i < kItems; i++) {
    pthread_mutex_lock(&lock);
    while (count == 0) pthread_cond_wait(&not_empty, &lock);
    unsigned long v = queue[head];
    head = (head + 1) % kCapacity;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
    BENCH_SPIN(v, 25000);
    sink += v;
    COZ_PROGRESS_NAMED("item");
  }
  pthread_join(p, NULL);
  bench_report(start, kItems, sink);
  return 0;
}
