/* Time spent inside the C library (no debug info, no frame pointers) must be charged to the
 * in-scope line that called it: 200 ms of CPU time in memset. */
#include <stdio.h>
#include <string.h>

#include "fixture_work.h"

static char buf[1 << 22];
volatile int sink;

__attribute__((noinline)) static void clear_many(double ms) {
  struct budget b = budget_cpu(ms);
  size_t size = work_scaled(sizeof buf);
  size = size < sizeof buf ? size : sizeof buf;
  for (int i = 0; budget_left(&b); i++) {
    memset(buf, i, size); /* LINE:memset */
    sink += buf[i & 1023];
  }
}

int main(void) {
  clear_many(200);
  printf("cleared\n");
  return 0;
}
