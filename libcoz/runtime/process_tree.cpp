// The runtime across a process tree (see runtime.h and shared_run.h): fork()'s handlers, which
// start the runtime again in a forked child as a follower of the run, and a follower's watch on
// the root.
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "own_fds.h"
#include "runtime/hooks_api.h"
#include "runtime/quiet_hooks.h"
#include "runtime/runtime.h"

namespace coz {

namespace {
Runtime* g_forking = nullptr;  // the runtime whose locks before_fork() holds
}  // namespace

void Runtime::before_fork() {
  Runtime* rt = active();
  if (rt && rt->owns_this_process() && rt->config_.follow_children && rt->run_.shared) {
    rt->lines_.before_fork();
    rt->points_.before_fork();
    g_forking = rt;
  }
}

void Runtime::after_fork_in_parent() {
  hooks_api::starting_process();
  if (Runtime* rt = g_forking) {
    g_forking = nullptr;
    rt->points_.after_fork();
    rt->lines_.after_fork();
  }
}

void Runtime::after_fork_in_child() {
  // First the table of the profiler's descriptors (its own handler, registered after this one,
  // would run too late): the child's runtime registers new ones, and another thread of the
  // parent may have held the table's lock as it forked.
  own_fds::forget_all_in_child();
  // The parent's runtime is not this process's: its threads, samplers and rings stayed behind.
  active_.store(nullptr, std::memory_order_release);
  quiet_hooks::g_experiment.store(nullptr, std::memory_order_release);
  wait_hooks::set_mode(0);
  Runtime* parent = g_forking;
  g_forking = nullptr;
  if (parent) {
    parent->points_.after_fork();
    parent->lines_.after_fork();
    parent->follow_into_child();
  }
}

void Runtime::follow_into_child() {
  hooks_api::InsideRuntime inside;
  LocalDelays inherited;
  if (ThreadState* t = t_thread_state) {
    inherited = t->delays;
  }
  t_thread_state = nullptr;
  life_.forget_calling_thread();  // its exit must not detach the parent's state
  lines_.clear_counts();          // the child counts its own samples
  points_.forget_published();     // and publishes its own arrivals
  JoinedRun run = run_;
  run.role = RunRole::kFollower;
  run.run->processes.fetch_add(1, std::memory_order_relaxed);
  // Never freed, as the first runtime: the child's threads may sample until it exits.
  auto* child = new Runtime(config_, points_, std::move(run), this);
  child->life_.reuse_key(life_);           // one key per image, however many generations fork
  child->config_.output = writer_.path();  // absolute: the program may have changed directory
  child->start(&inherited);
}

void Runtime::watch_root() {
  if (root_gone_ || kill(run_.root_pid, 0) == 0 || errno != ESRCH) {
    return;
  }
  root_gone_ = true;
  experiment_.selected.store(0, std::memory_order_release);
  experiment_.ledger.end();
  reporter_.say("the run's root process " + std::to_string(run_.root_pid) +
                    " has gone: its experiment is over",
                false);
}

void Runtime::before_exec() {
  // The new image starts a run of its own (its memory is not this one's): the children this
  // process leaves behind must not go on paying an experiment nobody will end.
  if (root() && owns_this_process()) {
    experiment_.selected.store(0, std::memory_order_release);
    experiment_.ledger.end();
  }
}

}  // namespace coz
