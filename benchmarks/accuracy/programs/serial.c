/* One thread, two functions: the marked one is 40% of each round. */
#include "bench.h"

__attribute__((noinline)) static unsigned long part_a(unsigned long v, long n) {
  BENCH_SPIN(v, n); /* MARKED */
  return v;
}

__attribute__((noinline)) static unsigned long part_b(unsigned long v, long n) {
  BENCH_SPIN(v, n);
  return v;
}

int main(void) {
  long a = bench_marked(1200000), b = 1800000;
  unsigned long v = 1;
  unsigned long long start = bench_now_ns();
  for (int r = 0; r < 300; r++) {
    v = part_a(v, a);
    v = part_b(v, b);
    COZ_PROGRESS_NAMED("round");
  }
  bench_report(start, 300, v);
  return 0;
}
