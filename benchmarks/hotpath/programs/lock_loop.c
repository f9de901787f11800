/* Two threads, each taking its own mutex ROUNDS times (default 20 million) around a short
 * update (16 dependent multiply-adds), and a shared mutex every 64th round: about 0.5 s natively,
 * 80 million lock/unlock pairs a second over two cores. Prints its wall time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"

static long rounds = 20000000;
static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared_total;

struct worker {
  pthread_mutex_t own;
  unsigned long value;
} __attribute__((aligned(64)));

static void* run(void* arg) {
  struct worker* w = arg;
  for (long i = 0; i < rounds; i++) {
    pthread_mutex_lock(&w->own);
    for (int k = 0; k < 16; k++) w->value = w->value * 6364136223846793005ul + 1442695040888963407ul;
    pthread_mutex_unlock(&w->own);
    if ((i & 63) == 0) {
      pthread_mutex_lock(&shared);
      shared_total += w->value >> 60;
      pthread_mutex_unlock(&shared);
      COZ_PROGRESS;
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) rounds = atol(argv[1]);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  static struct worker w[2] = {{PTHREAD_MUTEX_INITIALIZER, 1}, {PTHREAD_MUTEX_INITIALIZER, 2}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, run, &w[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  printf("elapsed_ns %lld rounds=%ld total=%lu\n", ns, rounds, shared_total);
  return 0;
}
