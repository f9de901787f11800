/* A library whose constructor starts a thread: it exists before the profiler's constructor runs. */
#include <pthread.h>

static pthread_t early;
volatile unsigned long early_sink;

__attribute__((noinline)) static void* early_spin(void* arg) {
  unsigned long v = 3;
  for (unsigned long i = 0; i < 150000000ul; i++) v = v * 2654435761ul + i; /* LINE:early */
  early_sink = v;
  return arg;
}

__attribute__((constructor)) static void start_early_thread(void) {
  pthread_create(&early, 0, early_spin, 0);
}

void early_thread_join(void) { pthread_join(early, 0); }
