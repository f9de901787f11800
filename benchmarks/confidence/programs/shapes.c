/* Programs with known causal profiles for the time-to-confidence benchmark (run.py). Each runs
 * for CONF_SECONDS seconds (default 30) and visits the progress point "item" once per item. Lines
 * marked BEST are the one line whose speedup helps the program most; lines marked NONE make no
 * difference to it; lines marked KNOWN help less than BEST. Several lines carry work, so the
 * profiler has to pick among them as it would in a real program.
 * Where it is known, a marker carries the true program speedup when the line is made s faster,
 * k s. SERIAL's follow from its units of work (the loop around them costs under 0.1%); TRUTH=1
 * python3 run.py measures them natively. The others' depend on the threads' hand-overs, which
 * depend on the machine's load, so they carry none: on the shared two-core VM, removing the 8-unit
 * line sped FORK_JOIN by 0.31, not 0.4, and the 6-unit line PIPELINE by 0.47, not 0.5; under a
 * parallel build those lines took 36% of a round, not 80%, and 34-48% of an item, not 75%.
 * - SERIAL: one thread, six lines of weights 8, 4, 2, 2, 1, 1 (k = weight / 18).
 * - FORK_JOIN: two threads meet at a barrier every round; the first runs 8 + 2 units, the second
 *   4 + 2 (NONE: the round waits for the first; speeding its 8-unit line past 50% caps at the
 *   second's length: a round of max(10 - 8s, 6) units).
 * - PIPELINE: a producer (6 + 2 units per item) hands items to a consumer (3 + 1) through a
 *   bounded queue: the producer is the bottleneck (an item every max(8 - 6s, 4) units), the
 *   consumer's lines are NONE. */
#include <pthread.h>
#include <stdlib.h>

#include "coz.h"
#include "work.h"

static double deadline;
static volatile unsigned long sink;
static long items; /* progress visits, printed at exit */

static int running(void) { return now_s() < deadline; }

#if defined(SERIAL)
static void run(void) {
  unsigned long v = 1;
  while (running()) {
    WORK(v, 8); /* BEST k=0.4444 */
    WORK(v, 4); /* KNOWN k=0.2222 */
    WORK(v, 2); /* KNOWN k=0.1111 */
    WORK(v, 2); /* KNOWN k=0.1111 */
    WORK(v, 1); /* KNOWN k=0.0556 */
    WORK(v, 1); /* KNOWN k=0.0556 */
    COZ_PROGRESS_NAMED("item");
    items++;
  }
  sink = v;
}

#elif defined(FORK_JOIN)
/* Two workers that stay, meeting at a barrier after every round (a thread pool's fork-join). */
static pthread_barrier_t start_round, end_round;
static volatile int stop;

static void* shorter(void* arg) {
  unsigned long v = (unsigned long)arg;
  for (;;) {
    pthread_barrier_wait(&start_round);
    if (stop) return (void*)v;
    WORK(v, 4); /* NONE */
    WORK(v, 2); /* NONE */
    pthread_barrier_wait(&end_round);
  }
}

static void run(void) {
  pthread_t t;
  pthread_barrier_init(&start_round, NULL, 2);
  pthread_barrier_init(&end_round, NULL, 2);
  pthread_create(&t, NULL, shorter, (void*)2);
  unsigned long v = 1;
  for (;;) {
    stop = !running();
    pthread_barrier_wait(&start_round);
    if (stop) break;
    WORK(v, 8); /* BEST */
    WORK(v, 2); /* KNOWN */
    pthread_barrier_wait(&end_round);
    COZ_PROGRESS_NAMED("item");
    items++;
  }
  pthread_join(t, NULL);
  sink = v;
}

#elif defined(PIPELINE)
enum { kQueue = 8 };
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static unsigned long queue[kQueue];
static int head, count, done;

static void* consumer(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&mutex);
    while (count == 0 && !done) pthread_cond_wait(&changed, &mutex);
    if (count == 0) {
      pthread_mutex_unlock(&mutex);
      return NULL;
    }
    unsigned long v = queue[head];
    head = (head + 1) % kQueue;
    count--;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
    WORK(v, 3); /* NONE */
    WORK(v, 1); /* NONE */
    sink ^= v;
    COZ_PROGRESS_NAMED("item");
    items++;
  }
}

static void run(void) {
  pthread_t c;
  pthread_create(&c, NULL, consumer, NULL);
  unsigned long v = 1;
  while (running()) {
    WORK(v, 6); /* BEST */
    WORK(v, 2); /* KNOWN */
    pthread_mutex_lock(&mutex);
    while (count == kQueue) pthread_cond_wait(&changed, &mutex);
    queue[(head + count) % kQueue] = v;
    count++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
  }
  pthread_mutex_lock(&mutex);
  done = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&mutex);
  pthread_join(c, NULL);
}
#else
#error "build with -DSERIAL, -DFORK_JOIN or -DPIPELINE"
#endif

int main(void) {
  const char* s = getenv("CONF_SECONDS");
  double start = now_s();
  deadline = start + (s && atof(s) > 0 ? atof(s) : 30);
  run();
  print_items(items, start);
  return 0;
}
