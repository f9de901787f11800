/* Two workers run a parallel loop between barriers, thousands of barriers per second. The
 * barrier spins for up to 0.1 ms and then blocks on a condition variable, as PARSEC's barriers
 * do. Every worker runs the marked line in each round; one of them (in turn) also has extra work,
 * so the other waits at every barrier, mostly spinning. MARK_WAIT tells the profiler where the
 * wait begins and ends, as coz.h asks of home-made blocking primitives. */
#include <pthread.h>
#include <stdatomic.h>

#include "bench.h"

enum { kWorkers = 2, kRounds = 40000 };
static long marked_n;

#ifdef MARK_WAIT
#define WAIT_BEGIN() COZ_PRE_BLOCK()
#define WAIT_END() COZ_POST_BLOCK(1)
#else
#define WAIT_BEGIN()
#define WAIT_END()
#endif

static struct {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int waiting;
  atomic_uint generation;
} barrier = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static void barrier_wait(void) {
  pthread_mutex_lock(&barrier.mutex);
  unsigned generation = atomic_load(&barrier.generation);
  if (++barrier.waiting == kWorkers) {
    barrier.waiting = 0;
    atomic_store(&barrier.generation, generation + 1);
    pthread_cond_broadcast(&barrier.cond);
    pthread_mutex_unlock(&barrier.mutex);
    return;
  }
  pthread_mutex_unlock(&barrier.mutex);
  WAIT_BEGIN();
  unsigned long long spin_start = bench_now_ns();
  while (bench_now_ns() - spin_start < 100000) {
    if (atomic_load_explicit(&barrier.generation, memory_order_acquire) != generation) {
      WAIT_END();
      return;
    }
    __builtin_ia32_pause();
  }
  pthread_mutex_lock(&barrier.mutex);
  while (atomic_load(&barrier.generation) == generation) {
    pthread_cond_wait(&barrier.cond, &barrier.mutex);
  }
  pthread_mutex_unlock(&barrier.mutex);
  WAIT_END();
}

static void* worker(void* arg) {
  long id = (long)arg;
  unsigned long v = (unsigned long)id + 1;
  for (int round = 0; round < kRounds; round++) {
    BENCH_SPIN(v, marked_n); /* MARKED */
    if (round % kWorkers == id) BENCH_SPIN(v, 20000);
    barrier_wait();
    if (id == 0) COZ_PROGRESS_NAMED("round");
  }
  return (void*)v;
}

int main(void) {
  marked_n = bench_marked(40000);
  unsigned long long start = bench_now_ns();
  pthread_t t[kWorkers];
  for (long i = 0; i < kWorkers; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  unsigned long sink = 0;
  for (int i = 0; i < kWorkers; i++) {
    void* r;
    pthread_join(t[i], &r);
    sink ^= (unsigned long)r;
  }
  bench_report(start, kRounds, sink);
  return 0;
}
