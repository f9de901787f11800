/* The sampling engines' cost inside the runtime (runtime.sh): IDLE threads blocked in read() on a
 * pipe that delivers only at the end, beside BUSY threads (0 or 1) that run a multiply chain for
 * SECONDS of wall time. Prints the process's CPU time and the busy thread's, in ns, so the script
 * can take the profiler's share: what the process used beyond its busy thread.
 * Usage: idle_threads IDLE SECONDS BUSY */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pipe_fds[2];

static long long now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void* idle_main(void* arg) {
  (void)arg;
  char c;
  while (read(pipe_fds[0], &c, 1) < 0) {
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: idle_threads IDLE SECONDS BUSY\n");
    return 2;
  }
  int idle = atoi(argv[1]);
  double seconds = atof(argv[2]);
  int busy = atoi(argv[3]);
  if (pipe(pipe_fds) != 0) {
    perror("pipe");
    return 2;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 << 10);
  pthread_t* threads = calloc((size_t)idle, sizeof *threads);
  for (int i = 0; i < idle; i++) {
    if (pthread_create(&threads[i], &attr, idle_main, NULL) != 0) {
      perror("pthread_create");
      return 2;
    }
  }
  long long end = now_ns(CLOCK_MONOTONIC) + (long long)(seconds * 1e9);
  long long busy_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  unsigned long v = 1;
  while (now_ns(CLOCK_MONOTONIC) < end) {
    if (busy) {
      for (long i = 0; i < 100000; i++) v = v * 2654435761ul + (unsigned long)i;
    } else {
      struct timespec t = {0, 50000000};
      nanosleep(&t, NULL);
    }
  }
  long long busy_cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - busy_start;
  long long process_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  char c[1024] = {0};
  for (int written = 0; written < idle; written += 1024) {
    if (write(pipe_fds[1], c, (size_t)(idle - written < 1024 ? idle - written : 1024)) < 0) break;
  }
  for (int i = 0; i < idle; i++) pthread_join(threads[i], NULL);
  printf("process_cpu_ns %lld busy_cpu_ns %lld sink %lu\n", process_cpu, busy ? busy_cpu : 0, v & 1);
  return 0;
}
