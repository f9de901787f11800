// Process-tree fixture: work done in child processes, for a time budget.
//   children fork MS        forks 2 workers that each spin on the child-work line, counting
//                           "child-jobs" visits, for MS milliseconds; the parent waits for both
//   children spawn MS       the same with one worker started by posix_spawn (a new image)
//   children many N         N children one after another, each exits at once with status 7;
//                           counts those reaped with it
//   children short N MS     N children one after another, each spins on its own line
//                           for MS milliseconds of its own CPU time and exits (a build's
//                           compiler runs); counts those reaped
//   children latency MS     requests begin in the parent (COZ_BEGIN "request") and end in a
//                           forked worker (COZ_END), one at a time over two pipes
//   children daemon MS FILE a grandchild in a new session with every descriptor closed spins
//                           for MS and then creates FILE; the parent returns at once
// Prints "done <n>" (visits seen by the parent, or children reaped) and exits with status 3.
#include <coz.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;
static volatile unsigned long sink;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void work(double ms) {
  double end = now_ms() + ms;
  while (now_ms() < end) {
    for (int i = 0; i < 20000; i++) {
      sink += i;  // LINE:child-work 
    }
    COZ_PROGRESS_NAMED("child-jobs");
  }
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int reap_all(int n) {
  int ok = 0;
  for (int i = 0; i < n; i++) {
    int status = 0;
    if (wait(&status) > 0 && WIFEXITED(status)) {
      ok++;
    }
  }
  return ok;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: children fork|spawn|many|daemon|work N [FILE]\n");
    return 2;
  }
  const char* mode = argv[1];
  double n = atof(argv[2]);
  if (strcmp(mode, "work") == 0) {  // the spawned worker
    work(n);
    return 0;
  }
  if (strcmp(mode, "fork") == 0 || strcmp(mode, "spawn") == 0) {
    int spawn = strcmp(mode, "spawn") == 0;
    for (int w = 0; w < 2; w++) {
      if (spawn && w == 1) {
        pid_t pid;
        char* args[] = {argv[0], "work", argv[2], NULL};
        if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) != 0) {
          return 2;
        }
        continue;
      }
      pid_t pid = fork();
      if (pid == 0) {
        work(n);
        exit(0);
      }
    }
    int reaped = reap_all(2);
    printf("done %d\n", reaped);
    return 3;
  }
  if (strcmp(mode, "latency") == 0) {
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) {
      return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {  // the worker: serves each request, ends it, answers
      close(to[1]);
      close(from[0]);
      char c;
      while (read(to[0], &c, 1) == 1) {
        work(0.2);
        COZ_END("request");
        if (write(from[1], &c, 1) != 1) {
          break;
        }
      }
      _exit(0);
    }
    close(to[0]);
    close(from[1]);
    double end = now_ms() + n;
    int served = 0;
    char c = 'r';
    while (now_ms() < end) {
      COZ_BEGIN("request");
      if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1) {
        return 2;
      }
      served++;
    }
    close(to[1]);
    reap_all(1);
    printf("done %d\n", served > 0 ? 1 : 0);
    return 3;
  }
  if (strcmp(mode, "many") == 0) {
    int ok = 0;
    for (int i = 0; i < (int)n; i++) {
      pid_t pid = fork();
      if (pid == 0) {
        _exit(7);
      }
      int status = 0;
      if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 7) {
        ok++;
      }
    }
    printf("done %d\n", ok);
    return 3;
  }
  if (strcmp(mode, "short") == 0 && argc > 3) {
    double ms = atof(argv[3]);
    int ok = 0;
    for (int i = 0; i < (int)n; i++) {
      pid_t pid = fork();
      if (pid == 0) {
        double end = cpu_ms() + ms;
        while (cpu_ms() < end) {
          for (int j = 0; j < 20000; j++) sink += j;  // LINE:short-work 
        }
        _exit(0);
      }
      ok += pid > 0 && reap_all(1) == 1;
    }
    printf("done %d\n", ok);
    return 3;
  }
  if (strcmp(mode, "daemon") == 0 && argc > 3) {
    pid_t pid = fork();
    if (pid == 0) {
      setsid();
      if (fork() != 0) {
        _exit(0);
      }
      syscall(SYS_close_range, 0u, ~0u, 0u);  // as a daemon does: every descriptor closed
      work(n);
      int fd = open(argv[3], O_WRONLY | O_CREAT, 0644);
      _exit(fd >= 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("done %d\n", WIFEXITED(status) ? 1 : 0);
    return 3;
  }
  fprintf(stderr, "children: unknown mode %s\n", mode);
  return 2;
}
