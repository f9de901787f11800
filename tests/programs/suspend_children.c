/* A master that waits for its children in sigsuspend, as nginx's does: SIGCHLD blocked except
 * in the wait, a handler that reaps, and CPU work between the waits so samples keep arriving.
 *   suspend_children MS   forks a short child, spins while it runs and waits for its SIGCHLD,
 *                         again and again for MS milliseconds; prints "done <rounds>"
 * An alarm ends it (status 142) if a wait never returns. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t reaped = 0;

static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) reaped++;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned long spin(long n, unsigned long v) {
  for (long i = 0; i < n; i++) v = v * 2654435761ul + i; /* a dependent multiply chain */
  return v;
}

int main(int argc, char** argv) {
  double budget = (argc > 1 ? atof(argv[1]) : 2000) / 1000;
  alarm((unsigned)budget + 20);
  sigset_t chld, none;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigemptyset(&none);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  struct sigaction sa = {0};
  sa.sa_handler = on_child;
  sigaction(SIGCHLD, &sa, NULL);
  double end = now() + budget;
  long rounds = 0;
  unsigned long v = 1;
  while (now() < end) {
    int before = reaped;
    pid_t p = fork();
    if (p == 0) _exit(spin(200000, 1) == 0);
    v = spin(200000, v); /* while the child runs */
    while (reaped == before) sigsuspend(&none);
    rounds++;
  }
  printf("done %ld %lu\n", rounds, v & 1);
  return 0;
}
