/* A two-process pipeline: the producer (the parent) does ~0.4 ms of work per item (the producer
 * line) and writes the item to a pipe, keeping at most WINDOW items unacknowledged; the consumer
 * (a forked child) reads each item, does ~0.6 ms of work (the consumer line) and writes an ack to
 * a second pipe. The parent counts acks (the progress point). With two free cores the consumer
 * is the bottleneck: speeding it up helps until the producer's 0.4 ms is the limit, speeding the
 * producer up helps little; with less than two cores free both lines share the CPU time and both
 * matter. A consumer that dies makes the producer exit non-zero (end of file on the acks). */
#include "procs.h"

#define ITEMS 1000
#define WINDOW 4

static void consumer(int items, int acks) {
  long n = procs_marked("consumer", 540000);
  unsigned long item;
  while (procs_read(items, &item, sizeof item, "consumer")) {
    BENCH_SPIN(item, n); /* MARKED:consumer */
    procs_write(acks, &item, sizeof item, "consumer");
  }
}

static unsigned long ack(int acks, unsigned long v) {
  unsigned long a;
  if (!procs_read(acks, &a, sizeof a, "producer")) {
    fprintf(stderr, "producer: the consumer went away (end of file on acks)\n");
    exit(1);
  }
  COZ_PROGRESS;
  return v ^ a;
}

int main(void) {
  int items[2], acks[2];
  procs_pipe(items);
  procs_pipe(acks);
  pid_t child = procs_start(consumer, items, acks);
  procs_started(items, acks);

  long n = procs_marked("producer", 360000);
  unsigned long v = 1;
  long in_flight = 0, done = 0;
  unsigned long long start = bench_now_ns();
  for (long i = 0; i < ITEMS; i++) {
    if (in_flight == WINDOW) {
      v = ack(acks[0], v);
      in_flight--;
      done++;
    }
    BENCH_SPIN(v, n); /* MARKED:producer */
    unsigned long item = v;
    procs_write(items[1], &item, sizeof item, "producer");
    in_flight++;
  }
  for (; in_flight > 0; in_flight--, done++) v = ack(acks[0], v);
  close(items[1]);
  procs_reap(child, "producer");
  bench_report(start, done, v);
  return 0;
}
