/* A background thread beside the work: the main thread handles items for `ms` milliseconds of
 * real time (argument 1, default 1500) and counts each; a second thread runs its own line on the
 * other core all the while, and nothing waits for it. Sped up by 100%, that line raises the delay
 * total as fast as the clock runs and the main thread cannot keep up. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"

static atomic_int done;
static volatile unsigned long sink;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void* background(void* arg) {
  unsigned long w = (unsigned long)arg;
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
    for (long i = 0; i < 20000; i++) w = w * 2654435761ul + (unsigned long)i; /* LINE:background */
  }
  sink = w;
  return NULL;
}

int main(int argc, char** argv) {
  double end = now_ms() + (argc > 1 ? atof(argv[1]) : 1500);
  pthread_t t;
  pthread_create(&t, NULL, background, (void*)3);
  unsigned long v = 1;
  while (now_ms() < end) {
    for (long i = 0; i < 20000; i++) v = v * 2654435761ul + (unsigned long)i; /* LINE:item */
    COZ_PROGRESS_NAMED("item");
  }
  atomic_store(&done, 1);
  pthread_join(t, NULL);
  sink ^= v;
  return 0;
}
