/* A program that uses the profiler's usual signal (SIGRTMAX-2) for itself: it installs a
 * handler, sends itself the signal four ways, reads its handler and its masks back, and works
 * meanwhile, and waits for it while blocking it. Its output must be the same with and without
 * the profiler. Mode "default" sends
 * the signal with no handler installed: the program must die of it, as without the profiler. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coz.h"

static volatile sig_atomic_t handled, last_code, last_value;
static volatile unsigned long sink;

static void on_signal(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  if (sig == SIGRTMAX - 2) handled++;
  last_code = info->si_code;
  last_value = info->si_code == SI_QUEUE ? info->si_value.sival_int : 0;
}

static void work(int rounds) {
  for (int r = 0; r < rounds; r++) {
    unsigned long v = (unsigned long)r;
    for (unsigned long i = 0; i < 2000000ul; i++) v = v * 2654435761ul + i; /* LINE:work */
    sink = v;
    COZ_PROGRESS;
  }
}

static void print_mask(const char* what) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  int blocked = 0;
  for (int s = 1; s <= SIGRTMAX; s++) blocked += sigismember(&now, s) == 1;
  printf("%s: %d signals blocked, ours blocked: %d\n", what, blocked, sigismember(&now, SIGRTMAX - 2));
}

static void* thread_main(void* arg) {
  (void)arg;
  print_mask("new thread");
  work(100);
  return NULL;
}

int main(int argc, char** argv) {
  int sig = SIGRTMAX - 2;
  if (argc > 1 && strcmp(argv[1], "default") == 0) {
    work(200);
    fflush(stdout);
    raise(sig);
    work(10);
    printf("survived\n");
    return 0;
  }
  struct sigaction sa, back;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  sigaction(sig, NULL, &back);
  printf("handler reads back: %d\n", back.sa_sigaction == on_signal && (back.sa_flags & SA_SIGINFO));

  work(150);
  raise(sig);
  printf("raise: handled %d code %d\n", (int)handled, (int)last_code);
  kill(getpid(), sig);
  printf("kill: handled %d code %d\n", (int)handled, (int)last_code);
  union sigval value = {.sival_int = 42};
  sigqueue(getpid(), sig, value);
  printf("sigqueue: handled %d code %d value %d\n", (int)handled, (int)last_code, (int)last_value);
  pthread_kill(pthread_self(), sig);
  printf("pthread_kill: handled %d code %d\n", (int)handled, (int)last_code);

  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  print_mask("all blocked");
  pthread_t t;
  pthread_create(&t, NULL, thread_main, NULL);
  pthread_join(t, NULL);
  work(150);
  raise(sig);  /* pending: it is blocked */
  siginfo_t si;
  int got = sigwaitinfo(&all, &si);
  printf("sigwaitinfo: got ours %d, handled %d\n", got == sig, (int)handled);
  union sigval later = {.sival_int = 7};
  sigqueue(getpid(), sig, later);
  printf("sent while blocked: handled %d\n", (int)handled);
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, sig);
  pthread_sigmask(SIG_UNBLOCK, &ours, NULL);
  print_mask("ours unblocked");
  printf("after unblocking: handled %d value %d\n", (int)handled, (int)last_value);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  print_mask("restored");

  signal(sig, SIG_IGN);
  raise(sig);
  sigaction(sig, NULL, &back);
  printf("ignored: handled %d, reads back SIG_IGN: %d\n", (int)handled, back.sa_handler == SIG_IGN);
  return 0;
}
