// Off-CPU fixture: a loop that computes a little, then waits off the CPU, for a time budget.
//   waits sleep MS      each visit sleeps 1 ms
//   waits pipe MS       each visit reads a byte that a child process writes every 1 ms
//   waits rawfork MS    each visit reads a byte from a child made by a raw clone (no atfork
//                       handlers run), which sleeps and writes it
//   waits poll MS       as pipe, each visit computing about 0.2 ms and then waiting in poll()
//                       for the byte; poll fails with EINTR if any signal's handler runs while it
//                       waits, restartable or not: counted, and printed as a third number
// Prints "done <visits> <bytes read>" and exits with status 3, so tests see both unchanged.
#include <coz.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void compute(void) {
  for (int i = 0; i < 20000; i++) {
    sink += i;  // LINE:compute 
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: waits sleep|pipe MS\n");
    return 2;
  }
  int poll_mode = strcmp(argv[1], "poll") == 0;
  int pipe_mode = poll_mode || strcmp(argv[1], "pipe") == 0;
  int raw_mode = strcmp(argv[1], "rawfork") == 0;
  double end = now_ms() + atof(argv[2]);
  int fds[2] = {-1, -1};
  pid_t child = -1;
  if (pipe_mode) {
    if (pipe(fds) != 0 || (child = fork()) < 0) {
      perror("waits");
      return 2;
    }
    if (child == 0) {  // the slower process: a byte every millisecond until the reader leaves
      close(fds[0]);
      struct timespec ms = {0, 1000000};
      char c = 'x';
      for (;;) {
        nanosleep(&ms, NULL);
        if (write(fds[1], &c, 1) != 1) {
          _exit(0);
        }
      }
    }
    close(fds[1]);
  }
  unsigned long visits = 0, bytes = 0, interrupted = 0;
  struct timespec ms = {0, 1000000};
  while (now_ms() < end) {
    compute();
    if (raw_mode) {
      int p[2];
      if (pipe(p) != 0) {
        return 2;
      }
      pid_t c = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
      if (c == 0) {
        nanosleep(&ms, NULL);
        char k = 'k';
        _exit(write(p[1], &k, 1) == 1 ? 0 : 1);
      }
      char k = 0;
      int status = -1;
      if (read(p[0], &k, 1) == 1 && k == 'k' && waitpid(c, &status, 0) == c && status == 0) {
        bytes++;
      }
      close(p[0]);
      close(p[1]);
    } else if (poll_mode) {
      for (int i = 0; i < 10; i++) {
        compute();
      }
      struct pollfd p = {fds[0], POLLIN, 0};
      int n;
      while ((n = poll(&p, 1, -1)) < 0 && errno == EINTR) {
        interrupted++;
      }
      char c;
      if (n == 1 && read(fds[0], &c, 1) == 1) {
        bytes++;
      }
    } else if (pipe_mode) {
      char c;
      if (read(fds[0], &c, 1) == 1) {  // LINE:read 
        bytes++;
      }
    } else {
      nanosleep(&ms, NULL);  // LINE:sleep 
    }
    COZ_PROGRESS;
    visits++;
  }
  if (child > 0) {
    close(fds[0]);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
  }
  if (poll_mode) {
    printf("done %lu %lu %lu\n", visits, bytes, interrupted);
  } else {
    printf("done %lu %lu\n", visits, bytes);
  }
  return 3;
}
