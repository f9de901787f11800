/* A program that looks like Go's to the profiler: a .go.buildinfo section, as Go's linker writes
 * into every binary it links (this one is C, so it runs like any other). It works for `ms`
 * milliseconds of CPU time (argument 1, default 200) and says so. */
#include <stdio.h>
#include <stdlib.h>

#include "coz.h"
#include "fixture_work.h"

__attribute__((section(".go.buildinfo"), used)) static const char buildinfo[32] = "\xff Go buildinf:";
static volatile unsigned long sink;

int main(int argc, char** argv) {
  unsigned long v = 1;
  struct budget b = budget_cpu(argc > 1 ? atof(argv[1]) : 200);
  while (budget_left(&b)) {
    for (unsigned long i = 0; i < 100000; i++) v = v * 2654435761ul + i;
    COZ_PROGRESS;
  }
  sink = v;
  printf("worked 1\n");
  return 0;
}
