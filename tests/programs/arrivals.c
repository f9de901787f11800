/* Producers paced by sleeps hand requests to one consumer over a mutex/condvar queue.
 * COZ_BEGIN at arrival (also an arrival point), COZ_END when served, COZ_ARRIVAL_NAMED per
 * producer, COZ_PROGRESS per request served. Prints the counts the profile must match.
 * usage: arrivals PRODUCERS REQUESTS_EACH PERIOD_US WORK_US [named]
 * WORK_US is the CPU time each request takes to serve, in microseconds (at least one chunk).
 * With "named", producers also pass COZ_ARRIVAL_NAMED("producer") (a second arrival point, so
 * each request counts twice toward amplification). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coz.h"
#include "fixture_work.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static long queued, produced_total, expected;
static long period_us, work_us;
static int named;
static volatile unsigned long bp_hits, sink;

static unsigned long work(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) sink = sink * 31 + i; /* LINE:WORK */
  return v;
}

__attribute__((noinline)) static void serve(void) {
  bp_hits = bp_hits + 1; /* LINE:BREAKPOINT */
  spin_for(work, 5000, (double)work_us / 1000, 0);
}

static void* producer(void* arg) {
  long n = (long)arg;
  for (long i = 0; i < n; i++) {
    struct timespec t = {0, period_us * 1000};
    nanosleep(&t, NULL);
    if (named) COZ_ARRIVAL_NAMED("producer");
    COZ_BEGIN("request");
    pthread_mutex_lock(&lock);
    queued++;
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: arrivals PRODUCERS REQUESTS_EACH PERIOD_US WORK_US [named]\n");
    return 2;
  }
  int producers = atoi(argv[1]);
  long each = atol(argv[2]);
  period_us = atol(argv[3]);
  work_us = atol(argv[4]);
  named = argc == 6;
  expected = producers * each;
  pthread_t t[16];
  for (int i = 0; i < producers && i < 16; i++) pthread_create(&t[i], NULL, producer, (void*)each);
  for (long served = 0; served < expected; served++) {
    pthread_mutex_lock(&lock);
    while (queued == 0) pthread_cond_wait(&ready, &lock);
    queued--;
    pthread_mutex_unlock(&lock);
    serve();
    COZ_END("request");
    COZ_PROGRESS_NAMED("served");
  }
  for (int i = 0; i < producers && i < 16; i++) pthread_join(t[i], NULL);
  produced_total = expected;
  printf("requests %ld bp_hits %lu\n", produced_total, bp_hits);
  return 0;
}
