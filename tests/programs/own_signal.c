/* A program that uses the profiler's usual signal (SIGRTMAX-2) for itself: it installs a
 * handler, sends itself the signal four ways, reads its handler and its masks back, and works
 * meanwhile, and waits for it while blocking it. Its output must be the same with and without
 * the profiler. Mode "default" sends
 * the signal with no handler installed: the program must die of it, as without the profiler.
 * A round of work is 1 ms of CPU time. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coz.h"
#include "fixture_work.h"

static volatile sig_atomic_t handled, last_code, last_value;
static volatile unsigned long sink;

static void on_signal(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  if (sig == SIGRTMAX - 2) handled++;
  last_code = info->si_code;
  last_value = info->si_code == SI_QUEUE ? info->si_value.sival_int : 0;
}

static void on_signal_restoring_mask(int sig, siginfo_t* info, void* ctx) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  pthread_sigmask(SIG_SETMASK, &now, NULL);
  on_signal(sig, info, ctx);
}

static volatile sig_atomic_t plain_handled;
static void on_plain_signal(int sig) {
  (void)sig;
  plain_handled++;
}

static int reader_fd, read_result, read_errno;
static void* read_one(void* arg) {
  (void)arg;
  char c;
  read_result = (int)read(reader_fd, &c, 1);
  read_errno = errno;
  return NULL;
}

static pthread_t main_thread;
static void* poke_main(void* arg) {
  (void)arg;
  usleep(200000);
  pthread_kill(main_thread, SIGRTMAX - 2);
  return NULL;
}

static unsigned long spin(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:work */
  return v;
}

static void work(int rounds) {
  for (int r = 0; r < rounds; r++) {
    sink = spin_for(spin, 100000, 1, (unsigned long)r);
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

  /* A zero timeout asks the kernel once: the pending SIGUSR1 is there. */
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  raise(SIGUSR1);
  struct timespec zero = {0, 0};
  int first = sigtimedwait(&usr1, &si, &zero);
  int second = sigtimedwait(&usr1, &si, &zero);
  printf("zero timeout: %d then %d\n", first == SIGUSR1, second);

  /* Inside its handler the program restores the mask it read there; after the handler the
   * signal is deliverable again. */
  sa.sa_sigaction = on_signal_restoring_mask;
  sigfillset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  raise(sig);
  raise(sig);
  printf("handler restoring its mask: handled %d\n", (int)handled);

  /* Without SA_RESTART, the program's signal ends a blocking read with EINTR. */
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  int fds[2];
  pipe(fds);
  reader_fd = fds[0];
  pthread_t reader;
  pthread_create(&reader, NULL, read_one, NULL);
  usleep(200000);
  pthread_kill(reader, sig);
  usleep(300000);
  write(fds[1], "x", 1); /* ends the read if the signal did not */
  pthread_join(reader, NULL);
  printf("read interrupted: %d\n", read_result < 0 && read_errno == EINTR);

  /* sigsuspend waiting for the signal while it is blocked: another thread sends it. */
  sigset_t blocked, waitmask;
  sigemptyset(&blocked);
  sigaddset(&blocked, sig);
  pthread_sigmask(SIG_BLOCK, &blocked, &waitmask);
  sigdelset(&waitmask, sig);
  main_thread = pthread_self();
  pthread_t poker;
  pthread_create(&poker, NULL, poke_main, NULL);
  int before = handled;
  sigsuspend(&waitmask);
  pthread_join(poker, NULL);
  pthread_sigmask(SIG_UNBLOCK, &blocked, NULL);
  printf("sigsuspend woken by it: %d\n", handled == before + 1);

  /* sigset() is another way in. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  sigset(sig, on_plain_signal);
#pragma GCC diagnostic pop
  raise(sig);
  printf("sigset handler ran: %d\n", (int)plain_handled);

  signal(sig, SIG_IGN);
  raise(sig);
  sigaction(sig, NULL, &back);
  printf("ignored: handled %d, reads back SIG_IGN: %d\n", (int)handled, back.sa_handler == SIG_IGN);
  return 0;
}
