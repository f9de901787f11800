/* Calls that never block, on the off-CPU hooks' path: ITERATIONS rounds (default 1,000,000) of a
 * one-byte write() to a non-blocking pipe and a read() of it back, 2 million calls in all, with a
 * progress point every 1,000 rounds. Prints the loop's wall time. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "coz.h"

int main(int argc, char** argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 1000000;
  int fds[2];
  if (pipe(fds) || fcntl(fds[0], F_SETFL, O_NONBLOCK) || fcntl(fds[1], F_SETFL, O_NONBLOCK)) {
    perror("pipe");
    return 2;
  }
  unsigned long total = 0;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < iterations; i++) {
    unsigned char c = (unsigned char)i;
    if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1) {
      perror("io_loop: write or read");
      return 1;
    }
    total += c;
    if (i % 1000 == 999) COZ_PROGRESS;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  printf("elapsed_ns %lld iterations=%ld total=%lu\n", ns, iterations, total);
  return 0;
}
