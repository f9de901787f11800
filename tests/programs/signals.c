/* The program's own signal use must keep working under the profiler: a SIGPROF interval timer,
 * a worker that blocks every signal (and spins for 250 ms of its CPU time), and sigwait on a
 * signal another thread sends. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "fixture_work.h"

static volatile sig_atomic_t prof_ticks;
static void on_prof(int sig) { (void)sig; prof_ticks++; }

volatile unsigned long masked_sink;
static unsigned long spin(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:masked */
  return v;
}

static void* masked_worker(void* arg) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  masked_sink = spin_for(spin, 100000, 250, (unsigned long)arg);
  return NULL;
}

static void* waiter(void* arg) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  int sig = 0;
  sigwait(&set, &sig);
  *(int*)arg = sig;
  return NULL;
}

int main(void) {
  signal(SIGPROF, on_prof);
  struct itimerval it = {{0, 10000}, {0, 10000}};
  setitimer(ITIMER_PROF, &it, NULL);

  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);  // inherited by the waiter, which sigwaits for it
  int got = 0;
  pthread_t w, m;
  pthread_create(&w, NULL, waiter, &got);
  pthread_create(&m, NULL, masked_worker, (void*)3);
  pthread_join(m, NULL);
  pthread_kill(w, SIGUSR1);
  pthread_join(w, NULL);

  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  printf("sigwait got SIGUSR1: %d\n", got == SIGUSR1);
  printf("SIGPROF handler ran: %d\n", prof_ticks > 0);
  return 0;
}
