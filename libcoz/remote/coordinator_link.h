// A member's end of a run across programs (docs/across-hosts.md): the connection from a profiled
// program's root process to `coz coordinate`. The coordinator runs the experiments; the link
// turns its messages into events for the member's runner (a line is wanted, an experiment begins,
// the run-wide delay total rose, the experiment ends) and carries the member's side back (a line
// sampled, its own delay total, the end of its experiment), and forwards the member's profile as
// it is written, so the coordinator's profile has every member's records.
//
// Threading: the profiler thread alone, then the thread that shuts the runtime down (after the
// profiler thread has ended). Never a program's thread: the socket is non-blocking and every
// wait is bounded, so a slow or lost coordinator costs the program nothing. Memory is bounded:
// at most SendQueue::kMaxQueued bytes wait to be sent; beyond that the profile's lines wait in
// the local file (read again once the queue drains).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "remote/link.h"
#include "remote/message.h"
#include "remote/send_queue.h"

namespace coz::remote {

struct MemberSettings {
  std::string address;  // HOST:PORT of the coordinator
  std::string secret;   // the run's shared secret, empty when none
  std::string host;     // this machine's name
  std::string program;
  uint64_t pid = 0;
  std::string profile;  // the local profile, forwarded from its size at start()
  // The member's own --fixed-line and --fixed-speedup (empty, -1: none): run-wide options.
  std::string fixed_line;
  int fixed_speedup = -1;
  bool end_to_end = false;
};

class CoordinatorLink : public Link {
 public:
  ~CoordinatorLink();

  // Begins connecting. False, with `why`, when the address cannot be used at all.
  bool start(const MemberSettings& settings, std::string* why);
  // Does the socket's work, waiting up to `wait_ms` for it; appends what arrived to `events`.
  void poll(int wait_ms, std::vector<LinkEvent>* events) override;
  void offer(const std::string& line) override { send(Message("offer").with("line", line)); }
  void raise(uint64_t experiment, uint64_t ns, uint64_t at_ns) override {
    send(Message("raise").with("exp", experiment).with("ns", ns).with("at", to_coordinator(at_ns)));
  }
  // Said once the profile, with the experiment's record, has been forwarded to its end (a
  // profile that filled half the send queue goes on at the next forward_profile).
  void ended(uint64_t experiment) override {
    ended_ = experiment + 1;
    forward_profile();
  }
  // Forwards what the local profile gained since the last call (whole lines only).
  void forward_profile() override;
  // At exit: forwards the rest of the profile, says goodbye and waits up to `ms` for it all to
  // be sent.
  void finish(int ms);

  bool joined() const { return state_ == State::kJoined; }
  bool ever_joined() const { return ever_joined_; }
  bool lost() const { return state_ == State::kLost; }
  const std::string& why_lost() const override { return why_lost_; }

 private:
  enum class State { kConnecting, kChallenged, kJoined, kLost };
  void send(const Message& m);
  void lose(const std::string& why);
  void handle(const Message& m, std::vector<LinkEvent>* events);
  void flush();
  // Times between this host's monotonic clock and the coordinator's, by the offset the fastest
  // ping measured (half its round trip is the error bound).
  uint64_t to_coordinator(uint64_t ns) const { return ns + static_cast<uint64_t>(offset_ns_); }
  uint64_t from_coordinator(uint64_t ns) const { return ns - static_cast<uint64_t>(offset_ns_); }
  void ping();

  MemberSettings settings_;
  State state_ = State::kLost;
  std::atomic<int> fd_{-1};
  std::atomic<int> profile_fd_{-1};
  uint64_t profile_at_ = 0;  // how far the profile was read
  uint64_t ended_ = 0;       // 1 + the experiment ended, to say once the profile is forwarded
  bool drained_ = false;     // the last forward_profile read the profile to its end
  std::string partial_;      // a profile line read only in part
  uint64_t connect_deadline_ns_ = 0;
  SendQueue out_;
  LineSplitter in_;
  std::string why_lost_;
  int64_t offset_ns_ = 0;  // the coordinator's clock minus this host's
  uint64_t best_rtt_ns_ = UINT64_MAX;
  uint64_t next_ping_ns_ = 0;
  int pings_ = 0;
  bool ever_joined_ = false;
};

}  // namespace coz::remote
