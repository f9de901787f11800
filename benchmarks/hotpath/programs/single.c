/* One thread, no synchronisation: ITEMS (default 3000) items of arithmetic work, a progress
 * point per item. Prints its wall time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"

static unsigned long mix(unsigned long v, long n) {
  for (long i = 0; i < n; i++) v = v * 6364136223846793005ul + 1442695040888963407ul;
  return v;
}

int main(int argc, char** argv) {
  long items = argc > 1 ? atol(argv[1]) : 3000;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  unsigned long v = 1;
  for (long i = 0; i < items; i++) {
    v = mix(v, 200000);
    v ^= mix(v, 100000) >> 7;
    COZ_PROGRESS;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  printf("elapsed_ns %lld items=%ld value=%lu\n", ns, items, v);
  return 0;
}
