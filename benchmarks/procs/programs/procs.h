/* Shared by the multi-process ground-truth programs (issue 28): whole-record pipe transfers that
 * exit non-zero with a message instead of hanging or going on with half a record, and children
 * that die with their parent. bench.h (benchmarks/accuracy/programs) gives the spin loop, the
 * ACC_SPEEDUP knob and the report line. A program has several marked lines and the environment
 * reaches every process, so ACC_LINE=tag says which one ACC_SPEEDUP applies to (all when unset). */
#ifndef PROCS_H
#define PROCS_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Iterations left on the line marked MARKED:tag: bench_marked() if ACC_LINE is unset or tag. */
static inline long procs_marked(const char* tag, long iterations) {
  const char* line = getenv("ACC_LINE");
  return line && strcmp(line, tag) ? iterations : bench_marked(iterations);
}

/* Reads or writes exactly `n` bytes (records are smaller than PIPE_BUF, so pipe transfers are
 * whole); returns 0 on end of file before any byte, exits with a message on anything else. */
static inline int procs_read(int fd, void* buf, size_t n, const char* what) {
  ssize_t got;
  do got = read(fd, buf, n);
  while (got < 0 && errno == EINTR);
  if (got == (ssize_t)n) return 1;
  if (got == 0) return 0;
  if (got < 0)
    fprintf(stderr, "%s: read: %s\n", what, strerror(errno));
  else
    fprintf(stderr, "%s: short read (%zd of %zu bytes)\n", what, got, n);
  exit(1);
}

static inline void procs_write(int fd, const void* buf, size_t n, const char* what) {
  ssize_t put;
  do put = write(fd, buf, n);
  while (put < 0 && errno == EINTR);
  if (put == (ssize_t)n) return;
  if (put < 0)
    fprintf(stderr, "%s: write: %s\n", what, strerror(errno));
  else
    fprintf(stderr, "%s: short write (%zd of %zu bytes)\n", what, put, n);
  exit(1);
}

static inline void procs_pipe(int fds[2]) {
  if (pipe(fds)) {
    perror("pipe");
    exit(2);
  }
}

/* fork(), the child dying with its parent; stdio flushed first so no buffer is written twice. */
static inline pid_t procs_fork(void) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(2);
  }
  if (pid == 0) prctl(PR_SET_PDEATHSIG, SIGKILL);
  return pid;
}

/* Forks a child that runs serve(down[0], up[1]) (reading from the parent on `down`, writing to it
 * on `up`, with the other ends closed) and then exits 0. */
static inline pid_t procs_start(void (*serve)(int, int), int down[2], int up[2]) {
  pid_t pid = procs_fork();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    serve(down[0], up[1]);
    _exit(0);
  }
  return pid;
}

/* In the parent, once every child has started: closes the children's ends, and ignores SIGPIPE so
 * that a write to a dead child fails (EPIPE, a message) instead of killing the parent. */
static inline void procs_started(int down[2], int up[2]) {
  close(down[0]);
  close(up[1]);
  signal(SIGPIPE, SIG_IGN);
}

/* Reaps `pid`; exits with a message unless it exited with status 0. */
static inline void procs_reap(pid_t pid, const char* what) {
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "%s: waitpid: %s\n", what, strerror(errno));
      exit(1);
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: child %d failed (status 0x%x)\n", what, (int)pid, status);
    exit(1);
  }
}

#endif
