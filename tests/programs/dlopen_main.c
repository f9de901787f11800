/* Loads libhot_lib.so (path in argv[1]) with dlopen and spins in it for 250 ms of CPU time. */
#include <dlfcn.h>
#include <stdio.h>

#include "fixture_work.h"

volatile unsigned long sink;

int main(int argc, char** argv) {
  if (argc < 2) {
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  unsigned long (*spin)(unsigned long, unsigned long) =
      (unsigned long (*)(unsigned long, unsigned long))dlsym(lib, "hot_lib_spin");
  sink = spin_for(spin, 1000000, 250, 1);
  printf("spun\n");
  return 0;
}
