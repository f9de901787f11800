/* A three-stage pipeline over bounded queues (mutex and condition variables, as pipeline.c): stage
 * 1 works ~0.5 ms per item; stage 2 sends the item over a socket to a server (a forked child,
 * outside the profile) that answers 1.5 ms after the request was sent, and its recv() of the
 * answer is marked; stage 3 works ~0.5 ms and counts the item. Stage 2 is the bottleneck until its
 * wait is made more than 2/3 shorter: ACC_SPEEDUP of 0.25 and 0.5 take about that fraction off the
 * run, 0.75 only about 60% (stages 1 and 3 then lead). */
#include <pthread.h>
#include <sys/socket.h>

#include "offcpu.h"

enum { kCapacity = 16, kItems = 1000 };
static const long long kDelayNs = 1500000;
static const long kWork = 470000; /* ~0.5 ms */
static int sockets[2];

struct queue {
  unsigned long items[kCapacity];
  int head, count;
  pthread_mutex_t lock;
  pthread_cond_t not_full, not_empty;
};
#define QUEUE_INIT \
  { .lock = PTHREAD_MUTEX_INITIALIZER, .not_full = PTHREAD_COND_INITIALIZER, .not_empty = PTHREAD_COND_INITIALIZER }
static struct queue first = QUEUE_INIT, second = QUEUE_INIT;

static void put(struct queue* q, unsigned long v) {
  pthread_mutex_lock(&q->lock);
  while (q->count == kCapacity) pthread_cond_wait(&q->not_full, &q->lock);
  q->items[(q->head + q->count++) % kCapacity] = v;
  pthread_cond_signal(&q->not_empty);
  pthread_mutex_unlock(&q->lock);
}

static unsigned long take(struct queue* q) {
  pthread_mutex_lock(&q->lock);
  while (q->count == 0) pthread_cond_wait(&q->not_empty, &q->lock);
  unsigned long v = q->items[q->head];
  q->head = (q->head + 1) % kCapacity;
  q->count--;
  pthread_cond_signal(&q->not_full);
  pthread_mutex_unlock(&q->lock);
  return v;
}

static void serve(void* arg) {
  long long delay = *(long long*)arg;
  close(sockets[0]);
  unsigned long long message[2]; /* send time, item */
  while (offcpu_raw_read(sockets[1], message, sizeof message) == sizeof message) {
    offcpu_child_delay(message[0], delay);
    unsigned long answer = message[1] ^ 0x5bd1e995ul;
    if (offcpu_raw_write(sockets[1], &answer, sizeof answer) != sizeof answer) break;
  }
}

static void* stage1(void* arg) {
  (void)arg;
  for (unsigned long i = 0; i < kItems; i++) {
    unsigned long v = i + 1;
    BENCH_SPIN(v, kWork);
    put(&first, v);
  }
  return NULL;
}

/* A request: its send time and the item. */
static void request(unsigned long v) {
  unsigned long long message[2] = {bench_now_ns(), v};
  offcpu_check(send(sockets[0], message, sizeof message, 0), sizeof message, "send request");
}

/* The next request goes out before the answer goes on to stage 3, so the server is not kept
 * waiting for a core while stages 1 and 3 both start their work. */
static void* stage2(void* arg) {
  (void)arg;
  unsigned long answer;
  request(take(&first));
  for (int i = 0; i < kItems; i++) {
    long got = recv(sockets[0], &answer, sizeof answer, MSG_WAITALL); /* MARKED */
    offcpu_check(got, sizeof answer, "recv answer");
    if (i + 1 < kItems) request(take(&first));
    put(&second, answer);
  }
  return NULL;
}

int main(void) {
  long long delay = (long long)((double)kDelayNs * (1.0 - offcpu_speedup()) + 0.5);
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sockets)) {
    perror("socketpair");
    return 2;
  }
  offcpu_start(serve, &delay);
  close(sockets[1]);
  unsigned long sink = 0;
  unsigned long long start = bench_now_ns();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, stage1, NULL);
  pthread_create(&t2, NULL, stage2, NULL);
  for (int i = 0; i < kItems; i++) {
    unsigned long v = take(&second);
    BENCH_SPIN(v, kWork);
    sink += v;
    COZ_PROGRESS_NAMED("item");
  }
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  bench_report(start, kItems, sink);
  offcpu_stop();
  return 0;
}
