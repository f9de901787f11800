/* Ways to leave: argv[1] is "thread-exit" (a worker calls exit(3) while main spins), "_exit"
 * (_exit(4) from main), "sigterm" (raise SIGTERM), "main-pthread-exit" (main calls pthread_exit
 * and the process ends with its last worker), or "vfork" (a vfork child fails to exec and calls
 * _exit). Each spins first (300 ms of the thread's CPU time) so experiments complete. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coz.h"
#include "fixture_work.h"

volatile unsigned long sink;

static unsigned long spin_chunk(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:spin */
  COZ_PROGRESS_NAMED("spin");
  return v;
}

/* Spins for `ms` of the thread's CPU time, at least one chunk. */
static void spin(double ms) {
  sink = spin_for(spin_chunk, 0x100000, ms, 1);
}

static void* spinner(void* arg) {
  (void)arg;
  spin(300);
  return NULL;
}

static void* exiter(void* arg) {
  (void)arg;
  spin(300);
  exit(3);
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "";
  if (strcmp(how, "thread-exit") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, exiter, NULL);
    for (;;) spin(0);
  }
  if (strcmp(how, "main-pthread-exit") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    pthread_exit(NULL);
  }
  spin(300);
  fflush(stdout);
  if (strcmp(how, "vfork") == 0) {
    pid_t child = vfork();
    if (child == 0) {
      _exit(9);  /* as after a failed exec */
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WEXITSTATUS(status) == 9 ? 0 : 1;
  }
  if (strcmp(how, "_exit") == 0) _exit(4);
  if (strcmp(how, "sigterm") == 0) raise(SIGTERM);
  return 0;
}
