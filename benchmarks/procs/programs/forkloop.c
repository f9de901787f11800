/* A shell-like loop: CHILDREN (default 10,000) short children one after another, each waited for
 * with waitpid; a progress point per child. By default a child is fork() then _exit(0) at once:
 * the cost measured is the fork, the exit and the reaping, without an exec's loading (fast, so
 * 10,000 children take about a second). FORKLOOP_EXEC=1 makes each child exec /bin/true instead,
 * as a shell would (and a preloaded runtime then starts in every child). A child that fails, or
 * an exec that fails, makes the loop exit non-zero. */
#include "procs.h"

int main(void) {
  long children = (long)bench_env("CHILDREN", 10000);
  int exec_true = getenv("FORKLOOP_EXEC") && atoi(getenv("FORKLOOP_EXEC"));
  unsigned long long start = bench_now_ns();
  long done = 0;
  for (; done < children; done++) {
    pid_t pid = procs_fork();
    if (pid == 0) {
      if (exec_true) {
        execl("/bin/true", "true", (char*)NULL);
        _exit(127);
      }
      _exit(0);
    }
    procs_reap(pid, "forkloop");
    COZ_PROGRESS;
  }
  bench_report(start, done, 0);
  return 0;
}
