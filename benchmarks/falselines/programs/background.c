/* A background thread beside the work: the main thread handles items and counts each; another
 * thread runs its own busy line on the other core for the whole run (a compactor, a logger).
 * Nothing ever waits for it, so making its line faster cannot change the program's speed. */
#include "shapes.h"

static atomic_int done;

static void* compactor(void* arg) {
  unsigned long w = (unsigned long)arg;
  long n = fl_none(20000);
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
    BENCH_SPIN(w, n); /* NONE */
  }
  return (void*)w;
}

int main(void) {
  return fl_items_beside(compactor, &done);
}
