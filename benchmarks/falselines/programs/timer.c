/* A timer thread: every 4 ms it wakes, runs about 1.5 ms of housekeeping (its own line) and sleeps
 * again; the main thread's items never wait for it. */
#include "shapes.h"

static atomic_int done;

static void* ticker(void* arg) {
  unsigned long w = (unsigned long)arg;
  long n = fl_none(60000);
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
    BENCH_SPIN(w, n); /* NONE */
    struct timespec tick = {0, 4000000};
    nanosleep(&tick, NULL);
  }
  return (void*)w;
}

int main(void) {
  return fl_items_beside(ticker, &done);
}
