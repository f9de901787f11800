/* N threads alive at once (they all wait at one barrier before working), each doing the same
 * fixed work with a progress point every round. Usage: concurrent THREADS ROUNDS PER_ROUND
 * The checksum goes to stdout; the phases' times (creating the threads, their work, the exits
 * and joins after the last thread finished its work) go to stderr. */
#include "threads.h"

static pthread_barrier_t start;
static long rounds, per_round;
static unsigned long long first_start_ns = ~0ull, last_done_ns;

/* Lowers (`sign` -1) or raises (+1) `*slot` to `now`. */
static void record(unsigned long long* slot, unsigned long long now, int sign) {
  unsigned long long seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
  while ((sign < 0 ? now < seen : now > seen) &&
         !__atomic_compare_exchange_n(slot, &seen, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

static void* worker(void* arg) {
  unsigned long* slot = arg;
  pthread_barrier_wait(&start);
  record(&first_start_ns, threads_now_ns(), -1);
  *slot = threads_work(*slot, rounds, per_round);
  record(&last_done_ns, threads_now_ns(), 1);
  return NULL;
}

int main(int argc, char** argv) {
  long n = threads_arg(argc, argv, 1, 1000);
  rounds = threads_arg(argc, argv, 2, 10);
  per_round = threads_arg(argc, argv, 3, 100000);
  pthread_t* threads = calloc((size_t)n, sizeof *threads);
  unsigned long* results = calloc((size_t)n, sizeof *results);
  pthread_attr_t attr;
  threads_attr(&attr);
  pthread_barrier_init(&start, NULL, (unsigned)n + 1);
  unsigned long long t0 = threads_now_ns();
  for (long i = 0; i < n; i++) {
    results[i] = (unsigned long)i;
    threads_create(&threads[i], &attr, worker, &results[i]);
  }
  pthread_barrier_wait(&start);
  unsigned long sum = 0;
  for (long i = 0; i < n; i++) {
    pthread_join(threads[i], NULL);
    sum ^= results[i];
  }
  unsigned long long t2 = threads_now_ns();
  fprintf(stderr, "phases create_ms %.1f work_ms %.1f exit_ms %.1f\n", (first_start_ns - t0) / 1e6,
          (last_done_ns - first_start_ns) / 1e6, (t2 - last_done_ns) / 1e6);
  printf("threads %ld rounds %ld checksum %lx\n", n, rounds, sum);
  return 0;
}
