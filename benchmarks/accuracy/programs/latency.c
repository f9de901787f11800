/* Requests arrive at pseudo-random (exponential) intervals, mean 1 ms, and wait in an unbounded
 * queue for one worker whose service (marked) takes ~0.45 ms: queueing plus service. COZ_BEGIN at
 * arrival, COZ_END at completion; the program prints its own mean latency. */
#include <math.h>
#include <pthread.h>

#include "bench.h"

enum { kRequests = 700 };
static unsigned long long arrived_at[kRequests];
static int arrived;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static long service_n;

static void* producer(void* arg) {
  (void)arg;
  unsigned long seed = 12345;
  for (int i = 0; i < kRequests; i++) {
    seed = seed * 6364136223846793005ul + 1442695040888963407ul;
    double u = ((seed >> 11) + 0.5) / 9007199254740992.0;
    bench_wait((unsigned long long)(-log(u) * 1000000.0));
    COZ_BEGIN("request");
    pthread_mutex_lock(&lock);
    arrived_at[arrived++] = bench_now_ns();
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  service_n = bench_marked(280000);
  unsigned long sink = 1;
  unsigned long long start = bench_now_ns(), total_latency = 0;
  pthread_t p;
  pthread_create(&p, NULL, producer, NULL);
  for (int i = 0; i < kRequests; i++) {
    pthread_mutex_lock(&lock);
    while (arrived <= i) pthread_cond_wait(&ready, &lock);
    unsigned long long at = arrived_at[i];
    pthread_mutex_unlock(&lock);
    BENCH_SPIN(sink, service_n); /* MARKED */
    COZ_END("request");
    total_latency += bench_now_ns() - at;
  }
  pthread_join(p, NULL);
  printf("mean_latency_ns %llu\n", total_latency / kRequests);
  bench_report(start, kRequests, sink);
  return 0;
}
