/* Two workers alternate private work and a section under one shared mutex.
 * - MARK_SECTION: the section is marked, three times as long as the private work, 60 us: it
 *   bounds throughput until it gets shorter than the private work. Otherwise the private work is
 *   marked.
 * - LONG_SECTIONS: sections three times as long as the private work, 0.4 ms. The waiter is awake
 *   before the holder is done: the sections run back to back, one worker's private work beside
 *   the other's section, so a shorter private part changes throughput by almost nothing.
 * - Default: the same shape at 60 us. A released waiter is still waking when the holder comes
 *   back for the lock and takes it again: each worker runs several items in a row, private work
 *   included, and the private part counts almost in full.
 * - CONTENTION: a lookup of its own (the private work) and a short update, half as long. While
 *   lookups are long the workers rarely meet at the mutex; shorter lookups make them collide more
 *   often, and a collision costs a sleep and a wake-up far longer than the update itself:
 *   speeding the lookup up makes the program slower.
 * Also prints how often the lock changed hands (benchmarks/hotpath compares it with and without
 * the profiler). */
#include <pthread.h>

#include "bench.h"

#if defined(LONG_SECTIONS)
enum { kItemsPerWorker = 2000, kPrivate = 120000, kSection = 360000 };
#elif defined(CONTENTION)
enum { kItemsPerWorker = 150000, kPrivate = 3000, kSection = 1500 };
#else
enum { kItemsPerWorker = 8000, kPrivate = 12000, kSection = 36000 };
#endif
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared_state = 1;
static long last_owner = -1, handovers; /* how often the lock changed hands (under the lock) */
static long private_n = kPrivate, section_n = kSection;

static void* worker(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (int i = 0; i < kItemsPerWorker; i++) {
    BENCH_SPIN(v, private_n); /* MARKED:private */
    pthread_mutex_lock(&lock);
    BENCH_SPIN(shared_state, section_n); /* MARKED:section */
    if (last_owner != (long)arg) {
      handovers++;
      last_owner = (long)arg;
    }
    pthread_mutex_unlock(&lock);
    COZ_PROGRESS_NAMED("item");
  }
  return (void*)v;
}

int main(void) {
#ifdef MARK_SECTION
  section_n = bench_marked(kSection);
#else
  private_n = bench_marked(kPrivate);
#endif
  unsigned long long start = bench_now_ns();
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  bench_report(start, 2 * kItemsPerWorker, shared_state);
  printf("handovers %ld\n", handovers);
  return 0;
}
