/* Work of known cost for the time-to-confidence programs (shapes.c, drift.c): a dependent
 * multiply chain, so a line's time is proportional to its steps wherever the code lands.
 * Built with -DCUT_LINE=n -DCUT_KEEP=p, the STEPS or WORK written on source line n does only p%
 * of its steps: that line really made faster, for measuring its true effect (run.py, TRUTH=1). */
#ifndef CONFIDENCE_WORK_H
#define CONFIDENCE_WORK_H

#include <stdio.h>
#include <time.h>

enum { kUnit = 20000 }; /* multiply-chain steps in one unit of work (20-60 us) */

#ifndef CUT_LINE
#define CUT_LINE 0
#define CUT_KEEP 100
#endif

/* `n` steps on `v`, charged to the line this is written on. */
#define STEPS(v, n)                                                                         \
  for (long work_i = 0, work_n = __LINE__ == CUT_LINE ? (n) * CUT_KEEP / 100 : (n);        \
       work_i < work_n; work_i++)                                                           \
  (v) = (v) * 2654435761ul + (unsigned long)work_i

#define WORK(v, units) STEPS(v, (units) * (long)kUnit)

static inline double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The native throughput, read by TRUTH=1; the profiled runs' output is discarded. */
static inline void print_items(long items, double since) {
  printf("items %ld seconds %.6f\n", items, now_s() - since);
}

#endif
