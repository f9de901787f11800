/* A program whose throughput drifts through each run, for the time-to-confidence benchmark. It
 * does a fixed amount of work (about 1.4 s on an idle machine: longer than the first 500 ms
 * experiment, so runs finish experiments) and run.py profiles it with `coz run --budget`, so it
 * runs again and again and every run goes through the same phases. The main thread handles
 * kItems items, visiting the progress point "item" once per item; item i costs
 *   parse  5 units                          (BEST)
 *   scan   6 units x i / kItems             (KNOWN: a scan of the table so far, which grows)
 *   cold   4 units for the first quarter    (KNOWN: misses while the cache warms)
 * so an item takes 9 units at the start, 6.5 once the cache is warm and 11 at the end. A second
 * thread works beside it all run long, and on a second line during the warm-up; the main thread
 * never waits for it (NONE).
 * Truth: the main thread is serial, so making a line s faster makes the run s x share faster,
 * share being the line's part of the main thread's units: parse 5 / 9, scan 3 / 9, cold 1 / 9
 * (the markers' k; the loop costs under 0.1%; TRUTH=1 python3 run.py measures them natively),
 * the effect on the whole run. Within a run the shares move (parse 0.45-0.77, scan 0-0.55, cold
 * 0.38-0.44 and then 0), and a profiler that picks lines by their samples sees each line mostly
 * when its share is high: weighted by time and share, parse 0.57, scan 0.42, cold 0.41. */
#include <pthread.h>
#include <stdatomic.h>

#include "coz.h"
#include "work.h"

enum { kItems = 7000 };

static atomic_int warming = 1, done;
static volatile unsigned long sink;

static void* beside(void* arg) {
  unsigned long v = (unsigned long)arg;
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
    WORK(v, 1); /* NONE */
    if (atomic_load_explicit(&warming, memory_order_relaxed)) {
      WORK(v, 1); /* NONE */
    }
  }
  sink = v;
  return NULL;
}

int main(void) {
  double start = now_s();
  pthread_t t;
  pthread_create(&t, NULL, beside, (void*)2);
  unsigned long v = 1;
  for (long i = 0; i < kItems; i++) {
    if (i == kItems / 4) {
      atomic_store(&warming, 0);
    }
    WORK(v, 5); /* BEST k=0.5556 */
    STEPS(v, 6 * kUnit * i / kItems); /* KNOWN k=0.3333 */
    if (i < kItems / 4) {
      WORK(v, 4); /* KNOWN k=0.1111 */
    }
    COZ_PROGRESS_NAMED("item");
  }
  atomic_store(&done, 1);
  pthread_join(t, NULL);
  sink ^= v;
  print_items(kItems, start);
  return 0;
}
