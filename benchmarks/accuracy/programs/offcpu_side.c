/* A side thread's wait, off the critical path: the main thread works ~2.3 ms per visit; a side
 * thread read()s ticks (marked) from a pipe that an external process (a forked child, outside the
 * profile) writes every 2 ms, and does ~15 us of work per tick. ACC_SPEEDUP shortens the tick
 * interval by that fraction: the side thread waits less and wakes more often, the main thread's
 * throughput is unchanged (effect about 0). */
#include <pthread.h>
#include <stdatomic.h>

#include "offcpu.h"

enum { kVisits = 500 };
static const long long kIntervalNs = 2000000;
static int ticks[2];
static atomic_int finished;
static unsigned long side_sink;

static void tick(void* arg) {
  long long interval = *(long long*)arg;
  close(ticks[0]);
  for (unsigned long i = 0;; i++) {
    offcpu_child_delay(0, interval);
    if (offcpu_raw_write(ticks[1], &i, sizeof i) != sizeof i) break;
  }
}

static void* side(void* arg) {
  (void)arg;
  unsigned long v = 1;
  for (;;) {
    unsigned long t;
    long got = read(ticks[0], &t, sizeof t); /* MARKED */
    if (atomic_load(&finished)) break;
    offcpu_check(got, sizeof t, "read tick");
    v ^= t;
    BENCH_SPIN(v, 14000);
    side_sink = v;
  }
  return NULL;
}

int main(void) {
  long long interval = (long long)((double)kIntervalNs * (1.0 - offcpu_speedup()) + 0.5);
  if (pipe(ticks)) {
    perror("pipe");
    return 2;
  }
  offcpu_start(tick, &interval);
  close(ticks[1]);
  unsigned long v = 1;
  unsigned long long start = bench_now_ns();
  pthread_t t;
  pthread_create(&t, NULL, side, NULL);
  for (int i = 0; i < kVisits; i++) {
    BENCH_SPIN(v, 2100000);
    COZ_PROGRESS_NAMED("visit");
  }
  bench_report(start, kVisits, v);
  atomic_store(&finished, 1);
  offcpu_stop(); /* the side thread's read() then returns 0, and it ends */
  pthread_join(t, NULL);
  return 0;
}
