/* A program built against the installed coz.h, by CMake (CMakeLists.txt: find_package) and by
 * make (Makefile: pkg-config): a loop with one progress point per unit of work. */
#include <coz.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void work(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) {
    sink += i * i;
  }
}

int main(int argc, char** argv) {
  int units = argc > 1 ? atoi(argv[1]) : 2000;
  for (int i = 0; i < units; i++) {
    work(200000);
    COZ_PROGRESS_NAMED("unit");
  }
  printf("%d units\n", units);
  return 0;
}
