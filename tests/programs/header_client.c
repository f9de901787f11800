/* Uses every coz.h macro from several threads at once (the first visits race on the lookup). */
#include <pthread.h>
#include <stdio.h>

#include "coz.h"

static void* visit(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; i++) {
    COZ_PROGRESS_NAMED("header progress");
    COZ_BEGIN("header latency");
    COZ_END("header latency");
  }
  return NULL;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, visit, NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  COZ_PROGRESS;
  printf("header client done\n");
  return 0;
}
