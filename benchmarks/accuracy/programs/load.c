/* Figure 6.1's shape, on a two-core machine: a producer paced at one request per millisecond
 * (ACC_LOAD=F makes it F times faster, the real load increase) feeds a consumer over a bounded
 * queue. Each request takes the consumer ~0.7 ms (marked; ACC_SPEEDUP shortens it), so it keeps
 * up at the original load and saturates past ~1.4x. One consumer, so the consumer, the producer
 * and the profiler never compete for the two cores. COZ_ARRIVAL marks arrivals, COZ_PROGRESS
 * completions. */
#include <pthread.h>

#include "bench.h"

enum { kRequests = 600, kCapacity = 8 };
static int queued, taken;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static long work_n;
static unsigned long long period_ns;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 0; i < kRequests; i++) {
    bench_wait(period_ns);
    COZ_ARRIVAL;
    pthread_mutex_lock(&lock);
    while (queued == kCapacity) pthread_cond_wait(&not_full, &lock);
    queued++;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void* consumer(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (queued == 0 && taken < kRequests) pthread_cond_wait(&not_empty, &lock);
    if (taken == kRequests) {
      pthread_mutex_unlock(&lock);
      return (void*)v;
    }
    queued--;
    taken++;
    if (taken == kRequests) pthread_cond_broadcast(&not_empty);
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
    BENCH_SPIN(v, work_n); /* MARKED */
    COZ_PROGRESS_NAMED("served");
  }
}

int main(void) {
  work_n = bench_marked(330000);
  period_ns = (unsigned long long)(1000000.0 / bench_env("ACC_LOAD", 1.0));
  unsigned long long start = bench_now_ns();
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, (void*)1);
  pthread_join(p, NULL);
  void* r;
  pthread_join(c, &r);
  unsigned long sink = (unsigned long)r;
  bench_report(start, kRequests, sink);
  return 0;
}
