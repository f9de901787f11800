/* A thread pool where one worker does unrelated work: the main thread hands items to a pool of
 * two workers through a mutex and condition variables and waits for each batch; one worker took
 * a maintenance task first (its own busy line, until the run ends), so the other handles every
 * item. The maintenance line is on no path the items take. */
#include "shapes.h"

enum { kBatch = 4 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER, batch_done = PTHREAD_COND_INITIALIZER;
static int queued, finished, maintenance = 1, stopping;
static atomic_int done;

static void maintain(unsigned long* w) {
  long n = fl_none(20000);
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
    BENCH_SPIN(*w, n); /* NONE */
  }
}

static void* worker(void* arg) {
  unsigned long w = (unsigned long)arg;
  pthread_mutex_lock(&lock);
  while (!stopping) {
    if (maintenance) {
      maintenance = 0;
      pthread_mutex_unlock(&lock);
      maintain(&w);
      pthread_mutex_lock(&lock);
    } else if (queued > 0) {
      queued--;
      pthread_mutex_unlock(&lock);
      BENCH_SPIN(w, 20000); /* WORK */
      COZ_PROGRESS_NAMED("item");
      pthread_mutex_lock(&lock);
      if (++finished == kBatch) {
        pthread_cond_signal(&batch_done);
      }
    } else {
      pthread_cond_wait(&work_ready, &lock);
    }
  }
  pthread_mutex_unlock(&lock);
  return (void*)w;
}

int main(void) {
  unsigned long long start = fl_now_ns(), end = fl_deadline(), visits = 0;
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    pthread_create(&t[i], NULL, worker, (void*)(unsigned long)(i + 3));
  }
  while (fl_now_ns() < end) {
    pthread_mutex_lock(&lock);
    queued = kBatch;
    finished = 0;
    pthread_cond_broadcast(&work_ready);
    while (finished < kBatch) {
      pthread_cond_wait(&batch_done, &lock);
    }
    pthread_mutex_unlock(&lock);
    visits += kBatch;
  }
  atomic_store(&done, 1);
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_broadcast(&work_ready);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
  }
  fl_report(start, visits, 0);
  return 0;
}
