/* Prints where its heap, its stack and a thread's stack are (for coz compare's layouts), visits
 * a progress point 10 times, and forks a child that visits it 3 times: each process's counts are
 * its own. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coz.h"

static void* thread_main(void* out) {
  int here = 0;
  *(uintptr_t*)out = (uintptr_t)&here;
  return NULL;
}

int main(void) {
  int here = 0;
  void* block = malloc(48);
  uintptr_t thread_stack = 0;
  pthread_t t;
  if (pthread_create(&t, NULL, thread_main, &thread_stack) != 0) return 1;
  pthread_join(t, NULL);
  printf("heap %lu stack %lu thread %lu\n", (unsigned long)((uintptr_t)block % 4096),
         (unsigned long)((uintptr_t)&here % 4096), (unsigned long)(thread_stack % 4096));
  for (int i = 0; i < 10; i++) COZ_PROGRESS_NAMED("probe");
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 3; i++) COZ_PROGRESS_NAMED("probe");
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  free(block);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
