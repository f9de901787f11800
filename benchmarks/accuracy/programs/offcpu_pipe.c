/* A worker asks a slower process for every answer: it writes a small request to one pipe; the
 * feeder (a forked child, outside the profile) reads it and writes the answer to another pipe 2 ms
 * after the request was sent. The worker's read() of the answer is marked; then ~1 ms of its own
 * work per request. ACC_SPEEDUP removes that fraction of the feeder's delay: the wait is about 2/3
 * of a request, so the effect is about S * 2/3. */
#include <pthread.h>

#include "offcpu.h"

enum { kRequests = 500 };
static const long long kDelayNs = 2000000;
static const long kWork = 900000; /* ~1 ms */
static int to_feeder[2], from_feeder[2];

static void feed(void* arg) {
  long long delay = *(long long*)arg;
  close(to_feeder[1]);
  close(from_feeder[0]);
  unsigned long long sent; /* the request: its send time */
  while (offcpu_raw_read(to_feeder[0], &sent, sizeof sent) == sizeof sent) {
    offcpu_child_delay(sent, delay);
    unsigned long answer = sent * 2654435761ul + 1;
    if (offcpu_raw_write(from_feeder[1], &answer, sizeof answer) != sizeof answer) break;
  }
}

static void* worker(void* arg) {
  unsigned long v = 1;
  for (unsigned long i = 0; i < kRequests; i++) {
    unsigned long answer;
    unsigned long long sent = bench_now_ns();
    offcpu_check(write(to_feeder[1], &sent, sizeof sent), sizeof sent, "write request");
    long got = read(from_feeder[0], &answer, sizeof answer); /* MARKED */
    offcpu_check(got, sizeof answer, "read answer");
    v ^= answer;
    BENCH_SPIN(v, kWork);
    COZ_PROGRESS_NAMED("request");
  }
  *(unsigned long*)arg = v;
  return NULL;
}

int main(void) {
  long long delay = (long long)((double)kDelayNs * (1.0 - offcpu_speedup()) + 0.5);
  if (pipe(to_feeder) || pipe(from_feeder)) {
    perror("pipe");
    return 2;
  }
  offcpu_start(feed, &delay);
  close(to_feeder[0]);
  close(from_feeder[1]);
  unsigned long sink = 0;
  unsigned long long start = bench_now_ns();
  pthread_t t;
  pthread_create(&t, NULL, worker, &sink);
  pthread_join(t, NULL);
  bench_report(start, kRequests, sink);
  offcpu_stop();
  return 0;
}
