/* Two hot functions on known lines, the first running twice as long as the second: each round
 * is 4 ms of CPU time in hot_a and 2 ms in hot_b, whatever the CPU's speed (two_hot_skewed is
 * built with HOT_A_MS=5.4 and HOT_B_MS=0.6). The loop body is a dependent multiply chain, so its
 * cost per iteration does not depend on code alignment. */
#include <stdio.h>
#include <stdlib.h>

#include "coz.h"
#include "fixture_work.h"

#ifndef HOT_A_MS
#define HOT_A_MS 4
#endif
#ifndef HOT_B_MS
#define HOT_B_MS 2
#endif
#define CHUNK ((unsigned long)(HOT_B_MS * 50000)) /* iterations between looks at the clock */

volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hot_a(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:hot_a */
  return v;
}

__attribute__((noinline)) static unsigned long hot_b(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:hot_b */
  return v;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 100;
  int chatty = argc > 2; /* a line per round, for tests of coz run's own terminal output */
  unsigned long v = 1;
  for (int r = 0; r < rounds; r++) {
    v = spin_for(hot_a, CHUNK, HOT_A_MS, v);
    v = spin_for(hot_b, CHUNK, HOT_B_MS, v);
    COZ_PROGRESS_NAMED("round");
    if (chatty) printf("round %d\n", r);
  }
  sink = v;
  printf("done %d rounds\n", rounds);
  return 0;
}
