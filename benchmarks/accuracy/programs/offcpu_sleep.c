/* Work then sleep, in one thread, the sleep marked (sleep.c marks the work): ~1.5 ms of work then
 * a 3 ms nanosleep per round, as a program might wait for fsync. ACC_SPEEDUP removes that fraction
 * of the sleep: the effect is about S * 2/3. */
#include "offcpu.h"

enum { kRounds = 300 };

int main(void) {
  struct timespec t = offcpu_sleep_spec((long long)(3000000.0 * (1.0 - offcpu_speedup()) + 0.5));
  unsigned long v = 1;
  unsigned long long start = bench_now_ns();
  for (int r = 0; r < kRounds; r++) {
    BENCH_SPIN(v, 1400000);
    nanosleep(&t, NULL); /* MARKED */
    COZ_PROGRESS_NAMED("round");
  }
  bench_report(start, kRounds, v);
  return 0;
}
