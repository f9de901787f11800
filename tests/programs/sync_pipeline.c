/* Producer and consumer over a bounded queue guarded by condition variables; the producer makes
 * items for 150 ms of its CPU time, then says it is done. Prints whether the consumer got every
 * item, in order. */
#include <pthread.h>
#include <stdio.h>

#include "coz.h"
#include "fixture_work.h"

enum { kCapacity = 8 };
static unsigned long queue[kCapacity];
static int head, count, done;
static unsigned long produced, produced_sum;
static volatile unsigned long sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void* producer(void* arg) {
  (void)arg;
  unsigned long n = work_scaled(200);
  struct budget b = budget_cpu(150);
  for (unsigned long i = 1; i % 256 != 1 || budget_left(&b); i++) {
    unsigned long v = i;
    for (unsigned long k = 0; k < n; k++) v = v * 2654435761ul + k;
    v = v * 2 + (i & 1); /* the low bit tells odd items from even ones, for the order check */
    pthread_mutex_lock(&lock);
    while (count == kCapacity) pthread_cond_wait(&not_full, &lock);
    queue[(head + count++) % kCapacity] = v;
    produced++;
    produced_sum += v;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t p;
  pthread_create(&p, NULL, producer, NULL);
  unsigned long n = work_scaled(100), consumed = 0, sum = 0;
  int in_order = 1;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (count == 0 && !done) pthread_cond_wait(&not_empty, &lock);
    if (count == 0) {
      pthread_mutex_unlock(&lock);
      break;
    }
    unsigned long v = queue[head];
    head = (head + 1) % kCapacity;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
    consumed++;
    sum += v;
    in_order = in_order && (v & 1) == (consumed & 1);
    for (unsigned long k = 0; k < n; k++) v = v * 31 + k;
    sink = v;
    COZ_PROGRESS_NAMED("consumed");
  }
  pthread_join(p, NULL);
  printf("every item consumed once, in order: %d\n",
         in_order && consumed == produced && sum == produced_sum && consumed > 0);
  return 0;
}
