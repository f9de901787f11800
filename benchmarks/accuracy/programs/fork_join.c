/* Figure 5.1: two threads joined every round, one longer than the other. Built twice: with
 * MARK_LONG the marked line is in the longer thread, otherwise in the shorter one. */
#include <pthread.h>

#include "bench.h"

struct job {
  long n;
  unsigned long v;
};

static void* long_thread(void* arg) {
  struct job* j = arg;
#ifdef MARK_LONG
  BENCH_SPIN(j->v, j->n); /* MARKED:long */
#else
  BENCH_SPIN(j->v, j->n);
#endif
  return NULL;
}

static void* short_thread(void* arg) {
  struct job* j = arg;
#ifdef MARK_LONG
  BENCH_SPIN(j->v, j->n);
#else
  BENCH_SPIN(j->v, j->n); /* MARKED:short */
#endif
  return NULL;
}

int main(void) {
#ifdef MARK_LONG
  long long_n = bench_marked(6000000), short_n = 3000000;
#else
  long long_n = 6000000, short_n = bench_marked(3000000);
#endif
  unsigned long sink = 0;
  unsigned long long start = bench_now_ns();
  for (int r = 0; r < 120; r++) {
    struct job a = {long_n, 1}, b = {short_n, 2};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, long_thread, &a);
    pthread_create(&tb, NULL, short_thread, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    sink ^= a.v ^ b.v;
    COZ_PROGRESS_NAMED("round");
  }
  bench_report(start, 120, sink);
  return 0;
}
