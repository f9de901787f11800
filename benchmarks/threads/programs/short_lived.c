/* Many short-lived threads: created BATCH at a time and joined before the next batch, each doing
 * a little work with a progress point. Usage: short_lived TOTAL BATCH ROUNDS PER_ROUND */
#include "threads.h"

static long rounds, per_round;

static void* worker(void* arg) {
  unsigned long* slot = arg;
  *slot = threads_work(*slot, rounds, per_round);
  return NULL;
}

int main(int argc, char** argv) {
  long total = threads_arg(argc, argv, 1, 20000);
  long batch = threads_arg(argc, argv, 2, 100);
  rounds = threads_arg(argc, argv, 3, 1);
  per_round = threads_arg(argc, argv, 4, 20000);
  pthread_t* threads = calloc((size_t)batch, sizeof *threads);
  unsigned long* results = calloc((size_t)batch, sizeof *results);
  pthread_attr_t attr;
  threads_attr(&attr);
  unsigned long sum = 0;
  for (long done = 0; done < total; done += batch) {
    long n = total - done < batch ? total - done : batch;
    for (long i = 0; i < n; i++) {
      results[i] = (unsigned long)(done + i);
      threads_create(&threads[i], &attr, worker, &results[i]);
    }
    for (long i = 0; i < n; i++) {
      pthread_join(threads[i], NULL);
      sum ^= results[i];
    }
  }
  printf("threads %ld batch %ld checksum %lx\n", total, batch, sum);
  return 0;
}
