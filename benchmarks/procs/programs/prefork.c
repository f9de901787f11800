/* Pre-fork server: the master forks 3 workers at start and dispatches JOBS jobs over one pipe,
 * keeping WINDOW jobs in flight. A worker reads a job, runs its handler (~0.5 ms of work, the
 * worker line) and writes a done-record to a results pipe. For each result the master counts the
 * job done (the progress point) and prepares and sends the next job (~0.2 ms of work, the master
 * line). On two cores the four processes share the CPU, so both lines are on the critical path,
 * the workers' far more. Workers stop at end of file on the job pipe; a worker that dies early
 * makes the master exit non-zero (a results read returning end of file, or a child reaped before
 * all jobs are done). */
#include <poll.h>

#include "procs.h"

#define WORKERS 3
#define JOBS 2000
#define WINDOW 6

struct job {
  long id;
  unsigned long seed;
};

struct done {
  long id;
  unsigned long value;
};

static void worker(int jobs, int results) {
  long n = procs_marked("worker", 450000);
  struct job j;
  while (procs_read(jobs, &j, sizeof j, "worker")) {
    struct done d = {j.id, j.seed};
    BENCH_SPIN(d.value, n); /* MARKED:worker */
    COZ_PROGRESS_NAMED("job");
    procs_write(results, &d, sizeof d, "worker");
  }
}

/* Prepares job `id` from `v` and sends it; returns the new `v`. */
static unsigned long dispatch(int jobs, long id, unsigned long v, long n) {
  BENCH_SPIN(v, n); /* MARKED:master */
  struct job j = {id, v};
  procs_write(jobs, &j, sizeof j, "master");
  return v;
}

/* A worker reaped before the master is done is a failure: say so rather than wait for its job. */
static void check_workers(const pid_t* pids) {
  int status;
  pid_t pid = waitpid(-1, &status, WNOHANG);
  if (pid > 0) {
    fprintf(stderr, "master: worker %d exited early (status 0x%x)\n", (int)pid, status);
    for (int w = 0; w < WORKERS; w++) kill(pids[w], SIGKILL);
    exit(1);
  }
}

int main(void) {
  int jobs[2], results[2];
  procs_pipe(jobs);
  procs_pipe(results);
  pid_t pids[WORKERS];
  for (int w = 0; w < WORKERS; w++) pids[w] = procs_start(worker, jobs, results);
  procs_started(jobs, results);

  long prep = procs_marked("master", 180000);
  unsigned long v = 1;
  long sent = 0, done = 0;
  unsigned long long start = bench_now_ns();
  for (; sent < WINDOW && sent < JOBS; sent++) v = dispatch(jobs[1], sent, v, prep);
  while (done < JOBS) {
    struct pollfd p = {results[0], POLLIN, 0};
    if (poll(&p, 1, 1000) == 0) {
      check_workers(pids);
      continue;
    }
    struct done d;
    if (!procs_read(results[0], &d, sizeof d, "master")) {
      fprintf(stderr, "master: the workers went away (end of file on results)\n");
      exit(1);
    }
    v ^= d.value;
    done++;
    COZ_PROGRESS;
    if (sent < JOBS) v = dispatch(jobs[1], sent++, v, prep);
  }
  close(jobs[1]);
  for (int w = 0; w < WORKERS; w++) procs_reap(pids[w], "master");
  bench_report(start, done, v);
  return 0;
}
