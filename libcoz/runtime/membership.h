// This process in a run across programs (--coordinator; docs/across-hosts.md): the link to the
// coordinator, the experiment runner following its experiments
// (profiler/coordinated_experiments.cpp), the credit of socket waits another member ended, and
// what is said of the coordinator at exit. A member's root joins; the processes of its tree take
// part through the run's shared memory, and credit socket waits alike.
// Threads: take_part() at start-up; woken() from any thread's hooks; finish() at shut-down.
#pragma once

#include <memory>
#include <string>

#include "config/run_config.h"
#include "delays/delay_protocol.h"
#include "line/line_table.h"
#include "profiler/experiment_runner.h"
#include "remote/coordinator_link.h"
#include "runtime/reporter.h"
#include "threads/thread_state.h"

namespace coz {

class Membership {
 public:
  Membership(const RunConfig& config, const Reporter& reporter, DelayProtocol& delays)
      : config_(config), reporter_(reporter), delays_(delays) {}

  // A process of a member's run: credits socket waits from now on (unless COZ_MEMBER_CREDIT=0,
  // to measure what that does); the `root` joins the coordinator and has `runner` follow it,
  // naming lines by their keys in `lines`.
  void take_part(bool root, ExperimentRunner& runner, const LineTable& lines);
  // A wait on socket `fd` that data ended (fd -1: an epoll_wait or select that returned ready
  // descriptors it does not name): its sender is taken for a thread of another member, and the
  // thread is credited with that member's raises (DelayProtocol::woken_by_member).
  void woken(ThreadState& t, int fd);
  // At shut-down, after the profile's last records: sends them, says goodbye, and says once if
  // the coordinator was never reached.
  void finish();

 private:
  const RunConfig& config_;
  const Reporter& reporter_;
  DelayProtocol& delays_;
  std::unique_ptr<remote::CoordinatorLink> link_;  // the root's, or null
  bool credit_ = false;                            // woken() credits socket waits
  std::string trouble_;  // what was said of the coordinator, once (empty: nothing)
};

}  // namespace coz
