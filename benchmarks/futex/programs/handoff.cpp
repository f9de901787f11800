// Two threads hand one token back and forth: each round, thread A runs line a (LINE_A units of a
// dependent multiply chain), hands the token to B and waits for it back; B runs line b (LINE_B
// units) and hands it back. One serial critical path, so making line a x% faster speeds a round
// up by x * a / (a + b). The hand-off is built one of three ways (compile with -DWAY=...):
//   1  std::binary_semaphore (libstdc++ parks in syscall(SYS_futex))
//   2  std::atomic<int>::wait / notify_one (the same)
//   3  pthread_mutex + pthread_cond (the control: followed through pthread calls)
// Runs FX_SECONDS (default 8) of real time; FX_A_SHARE (0-1, default 1) keeps that share of line
// a's work, to measure the true effect natively. Prints "elapsed_ns N visits V".
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <semaphore>
#include <thread>

#include "coz.h"

#define BENCH_SPIN(v, n) \
  for (long bench_i = 0; bench_i < (n); bench_i++) (v) = (v) * 2654435761ul + (unsigned long)bench_i

static unsigned long long now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}
static double env(const char* name, double fallback) {
  const char* s = getenv(name);
  return s && *s ? atof(s) : fallback;
}

static const long kUnit = 10000;
static long line_a = 0, line_b = 0;
static std::atomic<bool> stopping{false};
static volatile unsigned long sink;

#if WAY == 1
static std::binary_semaphore to_b{0}, to_a{0};
static void give_b() { to_b.release(); }
static void take_b() { to_b.acquire(); }
static void give_a() { to_a.release(); }
static void take_a() { to_a.acquire(); }
#elif WAY == 2
static std::atomic<int> turn{0};  // 0: A's turn, 1: B's
static void give_b() { turn.store(1); turn.notify_one(); }
static void take_b() { while (turn.load() != 1) turn.wait(0); }
static void give_a() { turn.store(0); turn.notify_one(); }
static void take_a() { while (turn.load() != 0) turn.wait(1); }
#else
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int whose = 0;
static void give(int to) {
  pthread_mutex_lock(&lock);
  whose = to;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&lock);
}
static void take(int me) {
  pthread_mutex_lock(&lock);
  while (whose != me) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}
static void give_b() { give(1); }
static void take_b() { take(1); }
static void give_a() { give(0); }
static void take_a() { take(0); }
#endif

static void b_thread() {
  unsigned long v = 7;
  for (;;) {
    take_b();
    if (stopping.load(std::memory_order_relaxed)) break;
    BENCH_SPIN(v, line_b); /* line b */
    give_a();
  }
  sink = v;
}

int main() {
  line_a = (long)(env("FX_LINE_A", 60) * kUnit * env("FX_A_SHARE", 1.0) + 0.5);
  line_b = (long)(env("FX_LINE_B", 40) * kUnit + 0.5);
  unsigned long long start = now_ns();
  unsigned long long end = start + (unsigned long long)(env("FX_SECONDS", 8) * 1e9);
  std::thread b(b_thread);
  unsigned long v = 3, visits = 0;
  while (now_ns() < end) {
    BENCH_SPIN(v, line_a); /* line a */
    give_b();
    take_a();
    COZ_PROGRESS_NAMED("round");
    visits++;
  }
  stopping.store(true);
  give_b();
  b.join();
  sink = v;
  printf("elapsed_ns %llu visits %lu\n", now_ns() - start, visits);
  return 0;
}
