/* Two parts of work per item, each a dependent multiply chain (its cost per step does not depend
 * on the code around it): PART_A steps on the line marked LINE:part_a, PART_B on part_b. Builds
 * that differ in PART_A differ by a known amount: the new build's speedup in a causal profile's
 * sense is 1 - (PART_A' + PART_B) / (PART_A + PART_B). ITEMS items, a progress point each. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "coz.h"

#ifndef PART_A
#define PART_A 100000
#endif
#ifndef PART_B
#define PART_B 100000
#endif

int main(int argc, char** argv) {
  long items = argc > 1 ? atol(argv[1]) : 400;
  unsigned long v = 1;
  for (long i = 0; i < items; i++) {
    BENCH_SPIN(v, PART_A); /* LINE:part_a */
    BENCH_SPIN(v, PART_B); /* LINE:part_b */
    COZ_PROGRESS_NAMED("item");
  }
  printf("%lu\n", v);
  return 0;
}
