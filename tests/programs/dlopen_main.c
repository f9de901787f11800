/* Loads libhot_lib.so (path in argv[1]) with dlopen and spins in it. */
#include <dlfcn.h>
#include <stdio.h>

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
  unsigned long v = spin(300000000ul, 1);
  printf("spun %lu\n", v & 1);
  return 0;
}
