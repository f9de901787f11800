/* A program built against the installed coz.h, by CMake (CMakeLists.txt: find_package) and by
 * make (Makefile: pkg-config): a loop with one progress point per unit of work. A unit is a
 * quarter of a millisecond of CPU time, so the run lasts as long on a fast CPU as on a slow one. */
#include <coz.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static void work(void) {
  clock_t end = clock() + CLOCKS_PER_SEC / 4000;
  do {
    for (unsigned long i = 0; i < 10000; i++) {
      sink += i * i;
    }
  } while (clock() < end);
}

int main(int argc, char** argv) {
  int units = argc > 1 ? atoi(argv[1]) : 2000;
  for (int i = 0; i < units; i++) {
    work();
    COZ_PROGRESS_NAMED("unit");
  }
  printf("%d units\n", units);
  return 0;
}
