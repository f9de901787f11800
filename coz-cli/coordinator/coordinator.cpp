// The coordinator's loop (see coordinator.h): members in, experiments out.
#include "coordinator/coordinator.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "base/platform.h"
#include "config/file_line.h"
#include "coordinator/adopted_options.h"
#include "coordinator/listener.h"
#include "coordinator/member_connection.h"
#include "coordinator/run_records.h"
#include "experiment/experiment_cycle.h"
#include "record/profile_writer.h"
#include "remote/message.h"
#include "remote/secret_proof.h"

namespace coz::coordinator {
namespace {

using remote::Message;

constexpr size_t kMaxMembers = 256;
constexpr uint64_t kCollectNs = 1000000000;  // how long an ended experiment waits for members

class Coordinator {
 public:
  explicit Coordinator(const Settings& s)
      : settings_(s), cycle_(scheduler_settings(s), platform::monotonic_ns() ^ getpid()) {}
  int run(const std::atomic<bool>& stop);

 private:
  using Phase = ExperimentCycle::Phase;
  static SchedulerSettings scheduler_settings(const Settings& s) {
    SchedulerSettings scheduler;
    if (s.experiment_length_ns) {
      scheduler.initial_length_ns = s.experiment_length_ns;
    }
    return scheduler;
  }
  // The cycle's phase now; a run with no member in it chooses no line.
  Phase phase() { return cycle_.phase(platform::monotonic_ns()); }
  bool choosing() { return phase() == Phase::kChoosing && joined() > 0 && !whole_run_begun_; }
  bool open_socket(std::string* why);
  void accept_member();
  void on_message(MemberConnection& m, const Message& msg);
  void on_hello(MemberConnection& m, const Message& msg);
  void on_record(MemberConnection& m, const std::string& line);
  bool take_run_options(MemberConnection& m, const remote::Message& hello);
  void advance();
  void begin(const std::string& line);
  Message begin_message() const;
  bool all_left_experiment() const;
  void end_experiment();
  // Appends a block of whole lines (`experiments` of them experiments) to the profile.
  void write(const std::string& text, uint64_t experiments = 0);
  size_t joined() const;
  // How long the loop may sleep: until the phase's deadline (or the collection's), at most
  // 10 ms (messages wake it).
  int wait_ms() const {
    uint64_t now = platform::monotonic_ns();
    uint64_t left =
        collecting_ ? (collect_until_ns_ > now ? collect_until_ns_ - now : 0) : cycle_.left_ns(now);
    return left >= 10000000 ? 10 : static_cast<int>((left + 999999) / 1000000);
  }
  void broadcast(const Message& msg, const MemberConnection* except = nullptr);

  Settings settings_;
  int listen_fd_ = -1;
  std::string listening_;  // HOST:PORT, as listened on
  ProfileWriter profile_;
  std::vector<std::unique_ptr<MemberConnection>> members_;
  size_t joined_ever_ = 0;
  uint64_t first_join_ns_ = 0;
  ExperimentCycle cycle_;
  bool asked_ = false;       // members were asked for a line ("want") since choosing began
  bool collecting_ = false;  // the open experiment's end was sent: waiting for the records
  uint64_t collect_until_ns_ = 0;
  uint64_t began_ns_ = platform::monotonic_ns();
  RunExperiment open_;
  std::vector<MemberExperiment> left_results_;  // of members that left the open experiment
  bool whole_run_begun_ = false;                // the one experiment of an end-to-end run
  uint64_t open_start_ns_ = 0;
  bool write_failed_ = false;
};

size_t Coordinator::joined() const {
  size_t n = 0;
  for (const auto& m : members_) {
    n += m->joined && !m->closed;
  }
  return n;
}

void Coordinator::broadcast(const Message& msg, const MemberConnection* except) {
  for (auto& m : members_) {
    if (m->joined && !m->closed && m.get() != except) {
      m->send(msg);
    }
  }
}

void Coordinator::write(const std::string& text, uint64_t experiments) {
  std::string why;
  if (!profile_.write_block(text, experiments, &why) && !write_failed_) {
    fprintf(stderr, "coz coordinate: error: cannot write %s (%s)\n", settings_.output.c_str(),
            why.c_str());
    write_failed_ = true;
  }
}

void Coordinator::on_hello(MemberConnection& m, const Message& msg) {
  uint64_t version = 0, pid = 0;
  if (!msg.number("v", 1000, &version) || version != remote::kProtocolVersion) {
    m.refuse("this coordinator speaks protocol version 1; use the same coz on every host");
    return;
  }
  if (!settings_.secret.empty() &&
      !remote::same_in_constant_time(msg.text("proof"),
                                     remote::hmac_sha256_hex(settings_.secret, m.nonce))) {
    m.refuse("wrong or missing shared secret (set COZ_SECRET or --secret-file as the coordinator)");
    return;
  }
  if (joined() >= kMaxMembers) {
    m.refuse("the run has 256 members already");
    return;
  }
  msg.number("pid", 1u << 31, &pid);
  if (!take_run_options(m, msg)) {
    return;
  }
  m.joined = true;
  m.host = msg.text("host");
  m.name = msg.text("program") + "@" + m.host;
  if (joined_ever_++ == 0) {
    first_join_ns_ = platform::monotonic_ns();
  }
  m.send(Message("welcome"));
  fprintf(stderr, "coz coordinate: %s (pid %llu) joined from %s\n", m.name.c_str(),
          static_cast<unsigned long long>(pid), m.peer.c_str());
  if (whole_run_begun_ && cycle_.current() == Phase::kRunning) {  // the one experiment: join it
    m.in_experiment = true;
    m.send(begin_message());
  }
  if (asked_ && choosing() && settings_.fixed_line.empty()) {
    m.send(Message("want"));
  }
}

// A member's --fixed-line, --fixed-speedup and --end-to-end hold run-wide (adopted_options.h).
bool Coordinator::take_run_options(MemberConnection& m, const Message& hello) {
  bool was_end_to_end = settings_.end_to_end;
  Adopted a = coordinator::adopt_run_options(hello, &settings_);
  if (!a.refusal.empty()) {
    m.refuse(a.refusal);
    return false;
  }
  for (const std::string& option : a.taken) {
    fprintf(stderr, "coz coordinate: %s, from %s, for the whole run\n", option.c_str(),
            m.peer.c_str());
  }
  if (!was_end_to_end && settings_.end_to_end && cycle_.current() == Phase::kRunning) {
    cycle_.end_now();  // the experiment under way ends now; the run's one follows it
  }
  return true;
}

void Coordinator::on_record(MemberConnection& m, const std::string& line) {
  std::string out;
  switch (use_of_line(line, m.host, &out)) {
    case LineUse::kWrite:
      m.capturing = false;
      write(out + "\n");
      break;
    case LineUse::kExperiment:
      m.capturing = true;
      m.current = MemberExperiment{out, {}};
      break;
    case LineUse::kPoint:
      if (m.capturing) {
        m.current.points.push_back(out);
      }
      break;
    case LineUse::kDrop:
      m.capturing = false;
      break;
  }
}

void Coordinator::on_message(MemberConnection& m, const Message& msg) {
  if (msg.kind == "hello" && !m.joined) {
    on_hello(m, msg);
    return;
  }
  if (!m.joined) {
    m.refuse("the first message must be hello");
    return;
  }
  uint64_t exp = 0, ns = 0, at = 0;
  if (msg.kind == "rec" && msg.find("r")) {
    on_record(m, msg.text("r"));
  } else if (msg.kind == "offer" && parse_file_line(msg.text("line"))) {
    if (asked_ && choosing() && settings_.fixed_line.empty()) {
      begin(msg.text("line"));
    }
  } else if (msg.kind == "raise" && msg.number("exp", UINT64_MAX, &exp) &&
             msg.number("ns", uint64_t{1} << 46, &ns) && msg.number("at", UINT64_MAX, &at)) {
    // Until the end is sent (advance), even once the length has passed.
    if (cycle_.current() == Phase::kRunning && exp == cycle_.experiments() &&
        ns > open_.inserted_ns) {
      open_.inserted_ns = ns;
      broadcast(Message("raise").with("exp", exp).with("ns", ns).with("at", at), &m);
    }
  } else if (msg.kind == "ping" && msg.number("t", UINT64_MAX, &at)) {
    m.send(Message("pong").with("t0", at).with("t", platform::monotonic_ns()));
  } else if (msg.kind == "ended" && msg.number("exp", UINT64_MAX, &exp)) {
    if (exp == cycle_.experiments() && m.in_experiment && m.capturing) {
      m.result = m.current;
      m.has_result = true;
    }
    m.capturing = false;
  } else if (msg.kind == "bye") {
    m.leaving = true;
  } else {
    m.refuse("a message this coordinator does not take: " + msg.kind);
  }
}

void Coordinator::begin(const std::string& line) {
  open_ = RunExperiment();
  left_results_.clear();
  open_.line = line;
  open_start_ns_ = platform::monotonic_ns();
  whole_run_begun_ = settings_.end_to_end;  // before the message, which says so
  // --fixed-speedup as a member may have given it since (adopted_options.h), or drawn.
  open_.speedup = cycle_.speedup(settings_.fixed_speedup);
  cycle_.begin(open_start_ns_, whole_run_begun_);
  asked_ = false;
  open_.start_ns = open_start_ns_ - began_ns_;
  open_.run_id = static_cast<uint64_t>(getpid());
  for (auto& m : members_) {
    m->in_experiment = m->joined && !m->closed;
    m->has_result = false;
  }
  broadcast(begin_message());
}

Message Coordinator::begin_message() const {
  Message begin("begin");
  begin.with("exp", cycle_.experiments())
      .with("line", open_.line)
      .with("speedup", static_cast<uint64_t>(open_.speedup));
  if (whole_run_begun_) {
    begin.with("whole-run", uint64_t{1});  // a member writes its record as it exits
    // The total so far: a member that joins now owes none of it (it counts from here).
    begin.with("base", open_.inserted_ns);
  }
  return begin;
}

// End to end: every member in the experiment has left (with its record, or without one).
bool Coordinator::all_left_experiment() const {
  for (const auto& m : members_) {
    if (m->in_experiment && !m->closed) {
      return false;
    }
  }
  return true;
}

void Coordinator::end_experiment() {
  open_.elapsed_ns = platform::monotonic_ns() - open_start_ns_;
  std::vector<MemberExperiment> results = std::move(left_results_);
  left_results_.clear();
  for (auto& m : members_) {
    if (m->in_experiment && m->has_result) {
      results.push_back(m->result);
    }
    m->in_experiment = false;
  }
  MergedVisits visits;
  if (!results.empty()) {
    write(merge_experiment(open_, results, &visits), 1);
  }
  collecting_ = false;
  cycle_.end(platform::monotonic_ns(), visits.total, visits.fewest);
}

// The cycle (experiment/experiment_cycle.h) with members: a line is asked of them, or the one
// --fixed-line gives; an experiment whose length has passed is ended for every member, and
// written once their records came or a second went by.
void Coordinator::advance() {
  uint64_t now = platform::monotonic_ns();
  switch (cycle_.phase(now)) {
    case Phase::kCoolingOff:
      break;
    case Phase::kChoosing:
      if (!choosing()) {
        asked_ = false;  // no member, or the run's one experiment is over
      } else if (!settings_.fixed_line.empty()) {
        begin(settings_.fixed_line);  // a member that joined meanwhile named it
      } else if (!asked_) {
        asked_ = true;
        broadcast(Message("want"));
      }
      break;
    case Phase::kRunning:
      if (whole_run_begun_ && all_left_experiment()) {
        end_experiment();  // the members' records came with their last messages
      }
      break;
    case Phase::kEnding: {
      if (!collecting_) {
        broadcast(Message("end").with("exp", cycle_.experiments()));
        collecting_ = true;
        collect_until_ns_ = now + kCollectNs;
        break;
      }
      bool all = true;
      for (const auto& m : members_) {
        all = all && (!m->in_experiment || m->closed || m->has_result);
      }
      if (all || now >= collect_until_ns_) {
        end_experiment();
      }
      break;
    }
  }
}

bool Coordinator::open_socket(std::string* why) {
  std::string host;
  uint16_t chosen = 0;
  listen_fd_ = listen_on(settings_.listen, !settings_.secret.empty(), &host, &chosen, why);
  if (listen_fd_ < 0) {
    return false;
  }
  listening_ = host + ":" + std::to_string(chosen);
  if (!settings_.port_file.empty()) {
    write_port_file(settings_.port_file, chosen);
  }
  return true;
}

void Coordinator::accept_member() {
  std::unique_ptr<MemberConnection> m = accept_one(listen_fd_);
  if (!m) {
    return;
  }
  if (members_.size() >= 2 * kMaxMembers) {
    m->refuse("too many connections");
    return;
  }
  m->nonce = remote::random_hex(16);
  m->send(Message("challenge").with("nonce", m->nonce));
  members_.push_back(std::move(m));
}

int Coordinator::run(const std::atomic<bool>& stop) {
  std::string why;
  if (!open_socket(&why)) {
    fprintf(stderr, "coz coordinate: error: %s\n", why.c_str());
    return 2;
  }
  if (!profile_.open(settings_.output, &why)) {
    fprintf(stderr, "coz coordinate: error: %s; name another with -o FILE\n", why.c_str());
    return 2;
  }
  fprintf(stderr, "coz coordinate: listening on %s; writing %s\n", listening_.c_str(),
          settings_.output
              .c_str());  // once the profile is open: a run that cannot write says only that
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  write(coordinator_startup(platform::wall_clock_ns(), getpid(), host));
  while (!stop.load()) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    for (const auto& m : members_) {
      fds.push_back({m->fd, static_cast<short>(POLLIN | (m->wants_to_send() ? POLLOUT : 0)), 0});
    }
    poll(fds.data(), fds.size(), wait_ms());
    if (fds[0].revents & POLLIN) {
      accept_member();
    }
    for (auto& m : members_) {
      bool open = m->receive();
      std::string line;
      Message msg;
      int got;
      while (!m->closed && (got = m->in.next(&line)) != 0) {
        if (got < 0 || !remote::decode(line, &msg, &why)) {
          m->refuse(got < 0 ? "a line over 64 KiB" : why);
          break;
        }
        on_message(*m, msg);
      }
      if (!open || m->leaving) {
        if (m->joined && !m->closed) {
          fprintf(stderr, "coz coordinate: %s left\n", m->name.c_str());
        }
        m->close();
      }
      m->flush();
    }
    for (auto& m : members_) {
      if (m->closed && m->in_experiment && m->has_result) {
        left_results_.push_back(std::move(m->result));  // the member goes, its record stays
      }
    }
    members_.erase(
        std::remove_if(members_.begin(), members_.end(),
                       [](const std::unique_ptr<MemberConnection>& m) { return m->closed; }),
        members_.end());
    advance();
    if (joined_ever_ > 0 && joined() == 0 && !collecting_) {
      break;  // the last member left
    }
  }
  if (whole_run_begun_ && phase() == Phase::kRunning) {
    end_experiment();  // stopped: from the members that left with their records
  }
  write(coordinator_runtime(joined_ever_ ? platform::monotonic_ns() - first_join_ns_ : 0));
  fprintf(stderr, "coz coordinate: profile written to %s: %llu experiments, %zu members\n",
          settings_.output.c_str(), static_cast<unsigned long long>(cycle_.experiments()),
          joined_ever_);
  profile_.close();
  ::close(listen_fd_);
  return write_failed_ ? 2 : 0;
}

}  // namespace

int coordinate(const Settings& settings, const std::atomic<bool>& stop) {
  Coordinator c(settings);
  return c.run(stop);
}

}  // namespace coz::coordinator
