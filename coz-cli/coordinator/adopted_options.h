// The options that name an experiment (--fixed-line, --fixed-speedup, --end-to-end) hold
// run-wide in a run across programs, whichever program they were given to: the coordinator's own
// settings, else the first member's that gives one. A pure step from a member's hello to the
// run's settings, so the rule is tested without sockets.
#pragma once

#include <string>
#include <vector>

#include "coordinator/coordinator.h"
#include "remote/message.h"

namespace coz::coordinator {

struct Adopted {
  std::string refusal;             // why the member is refused, or empty
  std::vector<std::string> taken;  // options the run took from it ("--fixed-line a.c:3", ...)
};

// A member whose option differs from the run's is refused; otherwise what it gives and the run
// lacks is set in `run`, and holds from the next experiment (--end-to-end from a member that
// joins after experiments ran: the one after the experiment under way).
Adopted adopt_run_options(const remote::Message& hello, Settings* run);

}  // namespace coz::coordinator
