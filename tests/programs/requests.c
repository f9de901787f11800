/* Requests one after another, each a COZ_BEGIN/COZ_END around a sleep of argv[2] microseconds
 * (argv[1] requests, default 50): a latency point whose mean latency the argument sets. */
#include <stdlib.h>
#include <time.h>

#include "coz.h"

int main(int argc, char** argv) {
  int requests = argc > 1 ? atoi(argv[1]) : 50;
  long us = argc > 2 ? atol(argv[2]) : 1000;
  for (int i = 0; i < requests; i++) {
    COZ_BEGIN("request");
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&t, NULL);
    COZ_END("request");
  }
  return 0;
}
