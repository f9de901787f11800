/* A make -j2-like driver: a shared list of JOBS jobs, at most 2 running at a time, each a forked
 * child that does ~2 ms of work (the job line) and exits. The driver waits for any child with
 * waitpid, counts the job done (the progress point) and starts the next. A child that fails
 * makes the driver stop the other and exit non-zero. */
#include "procs.h"

#define PARALLEL 2
#define JOBS 400

__attribute__((noinline)) static unsigned long job(unsigned long v, long n) {
  BENCH_SPIN(v, n); /* MARKED:job */
  return v;
}

static pid_t start_job(long id, long n) {
  pid_t pid = procs_fork();
  if (pid == 0) {
    volatile unsigned long sink = job((unsigned long)id + 1, n);
    (void)sink;
    _exit(0);
  }
  return pid;
}

int main(void) {
  long n = procs_marked("job", 1800000);
  pid_t running[PARALLEL];
  long next = 0, done = 0;
  unsigned long long start = bench_now_ns();
  for (; next < PARALLEL; next++) running[next] = start_job(next, n);
  while (done < JOBS) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      perror("driver: waitpid");
      return 1;
    }
    int slot = -1;
    for (int i = 0; i < PARALLEL; i++)
      if (running[i] == pid) slot = i;
    if (slot < 0) continue;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "driver: job child %d failed (status 0x%x)\n", (int)pid, status);
      for (int i = 0; i < PARALLEL; i++)
        if (i != slot && running[i] > 0) kill(running[i], SIGKILL);
      return 1;
    }
    done++;
    COZ_PROGRESS;
    running[slot] = next < JOBS ? start_job(next++, n) : -1;
  }
  bench_report(start, done, 0);
  return 0;
}
