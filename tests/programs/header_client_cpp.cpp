// coz.h from C++ (compiled with -std=c++11 -pedantic -Werror): every macro, in a function that
// the compiler inlines into a loop.
#include <cstdio>

#include "coz.h"

static inline void step() {
  COZ_PROGRESS_NAMED("cpp progress");
  COZ_BEGIN("cpp latency");
  COZ_END("cpp latency");
}

int main() {
  for (int i = 0; i < 250; i++) {
    step();
  }
  COZ_PROGRESS;
  std::puts("cpp client done");
  return 0;
}
