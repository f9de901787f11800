/* Timed waits that time out and timed waits that are released (by a thread that first works for
 * 20 ms of its CPU time), on every primitive with a timed variant; read-write locks; try/timed
 * joins. Prints what each call returned. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "fixture_work.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t s;
static int ready;

static struct timespec in_ms(clockid_t clock, long ms) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_nsec += ms * 1000000;
  t.tv_sec += t.tv_nsec / 1000000000;
  t.tv_nsec %= 1000000000;
  return t;
}

static volatile unsigned long sink;
static unsigned long add_up(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) sink += i;
  return v;
}

static void* releaser(void* arg) {
  (void)arg;
  spin_for(add_up, 100000, 20, 0);
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  sem_post(&s);
  return NULL;
}

static void* sleeper(void* arg) {
  usleep(200000);
  return arg;
}

int main(void) {
  sem_init(&s, 0, 0);
  struct timespec t = in_ms(CLOCK_REALTIME, 30);
  pthread_mutex_lock(&m);
  printf("cond timedwait timeout: %d\n", pthread_cond_timedwait(&c, &m, &t) == ETIMEDOUT);
  t = in_ms(CLOCK_MONOTONIC, 30);
  printf("cond clockwait timeout: %d\n", pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &t) == ETIMEDOUT);
  pthread_t r;
  pthread_create(&r, NULL, releaser, NULL);
  while (!ready) {
    t = in_ms(CLOCK_REALTIME, 5000);
    if (pthread_cond_timedwait(&c, &m, &t) != 0) break;
  }
  printf("cond released: %d\n", ready);
  pthread_mutex_unlock(&m);
  t = in_ms(CLOCK_REALTIME, 5000);
  printf("sem timedwait released: %d\n", sem_timedwait(&s, &t) == 0);
  t = in_ms(CLOCK_REALTIME, 20);
  printf("sem timedwait timeout: %d\n", sem_timedwait(&s, &t) == -1 && errno == ETIMEDOUT);
  t = in_ms(CLOCK_MONOTONIC, 20);
  printf("sem clockwait timeout: %d\n", sem_clockwait(&s, CLOCK_MONOTONIC, &t) == -1 && errno == ETIMEDOUT);
  pthread_join(r, NULL);

  pthread_mutex_lock(&m);
  t = in_ms(CLOCK_REALTIME, 20);
  pthread_t holder;
  printf("sleeper started: %d\n", pthread_create(&holder, NULL, sleeper, NULL) == 0);
  pthread_mutex_unlock(&m);
  printf("mutex timedlock free: %d\n", pthread_mutex_timedlock(&m, &t) == 0);
  pthread_mutex_unlock(&m);
  t = in_ms(CLOCK_MONOTONIC, 20);
  printf("mutex clocklock free: %d\n", pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &t) == 0);
  pthread_mutex_unlock(&m);

  pthread_rwlock_rdlock(&rw);
  printf("rwlock second reader: %d\n", pthread_rwlock_tryrdlock(&rw) == 0);
  pthread_rwlock_unlock(&rw);
  t = in_ms(CLOCK_REALTIME, 20);
  printf("rwlock writer times out: %d\n", pthread_rwlock_timedwrlock(&rw, &t) == ETIMEDOUT);
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_wrlock(&rw);
  t = in_ms(CLOCK_MONOTONIC, 20);
  printf("rwlock reader times out: %d\n", pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &t) == ETIMEDOUT);
  pthread_rwlock_unlock(&rw);

  printf("tryjoin busy: %d\n", pthread_tryjoin_np(holder, NULL) == EBUSY);
  t = in_ms(CLOCK_REALTIME, 10);
  printf("timedjoin timeout: %d\n", pthread_timedjoin_np(holder, NULL, &t) == ETIMEDOUT);
  t = in_ms(CLOCK_MONOTONIC, 5000);
  printf("clockjoin done: %d\n", pthread_clockjoin_np(holder, NULL, CLOCK_MONOTONIC, &t) == 0);
  return 0;
}
