/* Time spent inside the C library (no debug info, no frame pointers) must be charged to the
 * in-scope line that called it. */
#include <stdio.h>
#include <string.h>

static char buf[1 << 22];
volatile int sink;

__attribute__((noinline)) static void clear_many(int rounds) {
  for (int i = 0; i < rounds; i++) {
    memset(buf, i, sizeof buf); /* LINE:memset */
    sink += buf[i & 1023];
  }
}

int main(void) {
  clear_many(1500);
  printf("cleared\n");
  return 0;
}
