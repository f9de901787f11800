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
  unsigned long long start = fl_now_ns(), end = fl_deadline();
  pthread_t t;
  pthread_create(&t, NULL, compactor, (void*)3);
  unsigned long v = 1;
  unsigned long long visits = fl_items(&v, end);
  atomic_store(&done, 1);
  pthread_join(t, NULL);
  fl_report(start, visits, v);
  return 0;
}
