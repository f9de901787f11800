/* Four threads contend for one mutex; prints the exact final count. */
#include <pthread.h>
#include <stdio.h>

#include "coz.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;

static void* work(void* arg) {
  unsigned long local = (unsigned long)arg;
  for (int i = 0; i < 300000; i++) {
    for (int k = 0; k < 20; k++) local = local * 2654435761ul + (unsigned long)k;
    pthread_mutex_lock(&lock);
    counter += 1 + (local & 0);
    pthread_mutex_unlock(&lock);
    if (i % 1000 == 0) COZ_PROGRESS_NAMED("mutex rounds");
  }
  return NULL;
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, (void*)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  printf("counter %lu\n", counter);
  return 0;
}
