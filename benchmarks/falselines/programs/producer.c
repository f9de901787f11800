/* A producer that runs ahead of a bounded queue: it makes each item in a third of the time the
 * consumer takes to handle it, so the queue stays full and the producer waits on it. The
 * consumer is the bottleneck; the producer's line is not. */
#include "shapes.h"

enum { kSlots = 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static int count, stopping;

static void* producer(void* arg) {
  unsigned long w = (unsigned long)arg;
  long n = fl_none(7000);
  while (1) {
    BENCH_SPIN(w, n); /* NONE */
    pthread_mutex_lock(&lock);
    while (count == kSlots && !stopping) {
      pthread_cond_wait(&not_full, &lock);
    }
    if (stopping) {
      pthread_mutex_unlock(&lock);
      return (void*)w;
    }
    count++;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
}

int main(void) {
  unsigned long long start = fl_now_ns(), end = fl_deadline(), visits = 0;
  pthread_t t;
  pthread_create(&t, NULL, producer, (void*)3);
  unsigned long v = 1;
  while (fl_now_ns() < end) {
    pthread_mutex_lock(&lock);
    while (count == 0) {
      pthread_cond_wait(&not_empty, &lock);
    }
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
    BENCH_SPIN(v, 20000); /* WORK */
    COZ_PROGRESS_NAMED("item");
    visits++;
  }
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_broadcast(&not_full);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  fl_report(start, visits, v);
  return 0;
}
