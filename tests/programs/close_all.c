/* A program that closes every descriptor it did not open, as daemons do, then writes a file of
 * its own while it works: the file must hold exactly what it wrote, and the profile everything
 * the profiler measured. Modes: close_range, closefrom, loop (close() up to the limit), dup2
 * (dup2 its file onto every descriptor it finds open and write through each). Each round works
 * for 3 ms of CPU time. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coz.h"
#include "fixture_work.h"

static volatile unsigned long sink;

static unsigned long work(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:work */
  return v;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: close_all MODE FILE ROUNDS\n");
    return 2;
  }
  const char* mode = argv[1];
  int rounds = atoi(argv[3]);
  int dup_targets = 0;
  if (strcmp(mode, "close_range") == 0) {
    if (close_range(3, ~0U, 0) != 0) {
      perror("close_range");
      return 3;
    }
  } else if (strcmp(mode, "closefrom") == 0) {
    closefrom(3);
  } else if (strcmp(mode, "loop") == 0) {
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < max; fd++) close((int)fd);
  } else if (strcmp(mode, "dup2") == 0) {
    int mine = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int targets[4096];
    int n = 0;
    DIR* dir = opendir("/proc/self/fd");
    struct dirent* e;
    while (dir && (e = readdir(dir)) != NULL) {
      int fd = atoi(e->d_name);
      if (fd > 2 && fd != mine && fd != dirfd(dir) && n < 4096) targets[n++] = fd;
    }
    closedir(dir);
    for (int i = 0; i < n; i++) {
      if (dup2(mine, targets[i]) != targets[i]) {
        perror("dup2");
        return 4;
      }
      if (write(targets[i], "via dup\n", 8) != 8) {
        perror("write");
        return 5;
      }
      close(targets[i]);
      dup_targets++;
    }
    close(mine);
  }
  FILE* f = fopen(argv[2], "a");
  if (!f) {
    perror("fopen");
    return 6;
  }
  for (int r = 0; r < rounds; r++) {
    sink = spin_for(work, 100000, 3, (unsigned long)r);
    fprintf(f, "round %d\n", r);
    fflush(f);
    COZ_PROGRESS;
  }
  fclose(f);
  printf("done %d rounds\n", rounds);
  return 0;
}
