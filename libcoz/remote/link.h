// What a member's runner needs of its connection to the coordinator (remote/coordinator_link.h is
// the real one; tests drive the runner with their own): events in, the member's side out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace coz::remote {

struct LinkEvent {
  enum class Kind { kWant, kBegin, kRaise, kEnd, kLost } kind = Kind::kWant;
  uint64_t experiment = 0;
  std::string line;        // kBegin: FILE:LINE, as the member that offered it named it
  int speedup = 0;         // kBegin: percent
  bool whole_run = false;  // kBegin: end to end (the member writes its record as it exits)
  uint64_t ns = 0;         // kRaise: the run-wide delay total; kBegin: the total so far
  uint64_t at_ns = 0;      // kRaise: when the samples that raised it were taken (this host's clock)
};

class Link {
 public:
  virtual ~Link() = default;
  // Does the connection's work, waiting up to `wait_ms`; appends what arrived to `events`.
  virtual void poll(int wait_ms, std::vector<LinkEvent>* events) = 0;
  virtual void offer(const std::string& line) = 0;  // a line sampled, when one was wanted
  // This member's delay total rose to `ns`, by samples taken at `at_ns` (this host's clock).
  virtual void raise(uint64_t experiment, uint64_t ns, uint64_t at_ns) = 0;
  virtual void ended(uint64_t experiment) = 0;  // its record of the experiment is written
  virtual void forward_profile() = 0;           // sends what the local profile gained
  virtual const std::string& why_lost() const = 0;
};

}  // namespace coz::remote
