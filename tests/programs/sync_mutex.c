/* Four threads contend for one mutex, each for 50 ms of its CPU time; prints whether the shared
 * count is the sum of what each thread added. */
#include <pthread.h>
#include <stdio.h>

#include "coz.h"
#include "fixture_work.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;

static unsigned long added[4];

static void* work(void* arg) {
  long id = (long)arg;
  unsigned long local = (unsigned long)id, n = work_scaled(20);
  struct budget b = budget_cpu(50);
  unsigned long i = 0;
  do {
    for (unsigned long k = 0; k < n; k++) local = local * 2654435761ul + k;
    pthread_mutex_lock(&lock);
    counter += 1 + (local & 0);
    pthread_mutex_unlock(&lock);
    i++;
    if (i % 1000 == 0) COZ_PROGRESS_NAMED("mutex rounds");
  } while (i % 1000 != 0 || budget_left(&b));
  added[id] = i;
  return NULL;
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, (void*)i);
  unsigned long sum = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    sum += added[i];
  }
  printf("counter is the sum of the threads' additions: %d\n", counter == sum && sum > 0);
  return 0;
}
