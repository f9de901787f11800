/* Producer and consumer over a bounded queue guarded by condition variables; prints a checksum. */
#include <pthread.h>
#include <stdio.h>

#include "coz.h"

enum { kCapacity = 8, kItems = 200000 };
static unsigned long queue[kCapacity];
static int head, count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void* producer(void* arg) {
  (void)arg;
  for (unsigned long i = 1; i <= kItems; i++) {
    unsigned long v = i;
    for (int k = 0; k < 200; k++) v = v * 2654435761ul + (unsigned long)k;
    pthread_mutex_lock(&lock);
    while (count == kCapacity) pthread_cond_wait(&not_full, &lock);
    queue[(head + count++) % kCapacity] = v;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t p;
  pthread_create(&p, NULL, producer, NULL);
  unsigned long sum = 0;
  for (int i = 0; i < kItems; i++) {
    pthread_mutex_lock(&lock);
    while (count == 0) pthread_cond_wait(&not_empty, &lock);
    unsigned long v = queue[head];
    head = (head + 1) % kCapacity;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
    for (int k = 0; k < 100; k++) v = v * 31 + (unsigned long)k;
    sum += v;
    COZ_PROGRESS_NAMED("consumed");
  }
  pthread_join(p, NULL);
  printf("checksum %lx\n", sum);
  return 0;
}
