/* The marked line runs only in the first of two equal phases. */
#include "bench.h"

int main(void) {
  long n = bench_marked(2000000);
  unsigned long v = 1;
  unsigned long long start = bench_now_ns();
  for (int r = 0; r < 250; r++) {
    BENCH_SPIN(v, n); /* MARKED */
    COZ_PROGRESS_NAMED("round");
  }
  for (int r = 0; r < 250; r++) {
    BENCH_SPIN(v, 2000000);
    COZ_PROGRESS_NAMED("round");
  }
  bench_report(start, 500, v);
  return 0;
}
