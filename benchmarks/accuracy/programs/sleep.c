/* Compute then sleep, in one thread: only the compute part can be made faster. */
#include <unistd.h>

#include "bench.h"

int main(void) {
  long n = bench_marked(4000000);
  unsigned long v = 1;
  unsigned long long start = bench_now_ns();
  for (int r = 0; r < 150; r++) {
    BENCH_SPIN(v, n); /* MARKED */
    usleep(4000);
    COZ_PROGRESS_NAMED("round");
  }
  bench_report(start, 150, v);
  return 0;
}
