// A member's connection to the coordinator (see coordinator_link.h).
#include "remote/coordinator_link.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/own_fds.h"
#include "base/platform.h"
#include "base/real_functions.h"
#include "remote/address.h"
#include "remote/secret_proof.h"

namespace coz::remote {
namespace {

constexpr uint64_t kConnectTimeoutNs = 5000000000ull;
constexpr uint64_t kMaxExperiment = uint64_t{1} << 40;
constexpr uint64_t kMaxDelayNs = uint64_t{1} << 46;

LinkEvent lost_event() {
  LinkEvent e;
  e.kind = LinkEvent::Kind::kLost;
  return e;
}

}  // namespace

CoordinatorLink::~CoordinatorLink() {
  own_fds::release(&fd_);
  own_fds::release(&profile_fd_);
}

bool CoordinatorLink::start(const MemberSettings& settings, std::string* why) {
  settings_ = settings;
  std::string host, port;
  if (!split_host_port(settings.address, &host, &port)) {
    *why = "--coordinator " + settings.address + " is not HOST:PORT";
    return false;
  }
  addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found) {
    *why = "--coordinator " + settings.address + ": no such host or port";
    return false;
  }
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (real().connect(fd, found->ai_addr, found->ai_addrlen) != 0 && errno != EINPROGRESS) {
      real().close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    *why = "cannot reach the coordinator at " + settings.address + " (" + strerror(errno) + ")";
    return false;
  }
  fd_.store(own_fds::move_high(fd));
  own_fds::adopt(&fd_);
  int profile = open(settings.profile.c_str(), O_RDONLY | O_CLOEXEC);
  if (profile >= 0) {
    profile_at_ = static_cast<uint64_t>(lseek(profile, 0, SEEK_END));
    profile_fd_.store(own_fds::move_high(profile));
    own_fds::adopt(&profile_fd_);
  }
  state_ = State::kConnecting;
  connect_deadline_ns_ = platform::monotonic_ns() + kConnectTimeoutNs;
  return true;
}

void CoordinatorLink::lose(const std::string& why) {
  if (state_ != State::kLost) {
    state_ = State::kLost;
    why_lost_ = why;
    own_fds::release(&fd_);
  }
}

void CoordinatorLink::send(const Message& m) {
  if (state_ == State::kLost) {
    return;
  }
  if (!out_.push(encode(m))) {
    lose("the coordinator took nothing for too long (" + SendQueue::limit_text() + " waiting)");
  }
}

void CoordinatorLink::flush() {
  if (int failed = out_.flush(fd_.load(), real().send); failed != 0) {
    lose(std::string("the connection to the coordinator failed (") + strerror(failed) + ")");
  }
}

void CoordinatorLink::handle(const Message& m, std::vector<LinkEvent>* events) {
  LinkEvent e;
  uint64_t speedup = 0;
  if (m.kind == "challenge" && state_ == State::kConnecting) {
    Message hello("hello");
    hello.with("v", static_cast<uint64_t>(kProtocolVersion))
        .with("host", settings_.host)
        .with("program", settings_.program)
        .with("pid", settings_.pid);
    if (!settings_.secret.empty()) {
      hello.with("proof", hmac_sha256_hex(settings_.secret, m.text("nonce")));
    }
    if (!settings_.fixed_line.empty()) {
      hello.with("fixed-line", settings_.fixed_line);
    }
    if (settings_.fixed_speedup >= 0) {
      hello.with("fixed-speedup", static_cast<uint64_t>(settings_.fixed_speedup));
    }
    if (settings_.end_to_end) {
      hello.with("end-to-end", uint64_t{1});
    }
    state_ = State::kChallenged;
    send(hello);
    return;
  }
  if (m.kind == "welcome" && state_ == State::kChallenged) {
    state_ = State::kJoined;
    ever_joined_ = true;
    ping();
    return;
  }
  uint64_t sent_at = 0, their = 0;
  if (m.kind == "pong" && m.number("t0", UINT64_MAX, &sent_at) &&
      m.number("t", UINT64_MAX, &their)) {
    uint64_t now = platform::monotonic_ns();
    if (now >= sent_at && now - sent_at < best_rtt_ns_) {
      best_rtt_ns_ = now - sent_at;
      offset_ns_ =
          static_cast<int64_t>(their) - static_cast<int64_t>(sent_at + (now - sent_at) / 2);
    }
    return;
  }
  if (m.kind == "refused") {
    lose("the coordinator refused this program: " + m.text("why"));
    return;
  }
  if (state_ != State::kJoined) {
    lose("the coordinator sent " + m.kind + " before it welcomed this program");
    return;
  }
  if (m.kind == "want") {
    e.kind = LinkEvent::Kind::kWant;
  } else if (m.kind == "begin" && m.number("exp", kMaxExperiment, &e.experiment) &&
             m.number("speedup", 100, &speedup) && !m.text("line").empty()) {
    e.kind = LinkEvent::Kind::kBegin;
    e.line = m.text("line");
    e.speedup = static_cast<int>(speedup);
    e.whole_run = m.text("whole-run") == "1";
    m.number("base", kMaxDelayNs, &e.ns);  // end to end, joined late: the run's total so far
  } else if (m.kind == "raise" && m.number("exp", kMaxExperiment, &e.experiment) &&
             m.number("ns", kMaxDelayNs, &e.ns) && m.number("at", UINT64_MAX, &e.at_ns)) {
    e.kind = LinkEvent::Kind::kRaise;
    e.at_ns = from_coordinator(e.at_ns);
  } else if (m.kind == "end" && m.number("exp", kMaxExperiment, &e.experiment)) {
    e.kind = LinkEvent::Kind::kEnd;
  } else {
    lose("the coordinator sent a message this build does not know (" + m.kind + ")");
    return;
  }
  events->push_back(std::move(e));
}

void CoordinatorLink::poll(int wait_ms, std::vector<LinkEvent>* events) {
  int fd = fd_.load();
  if (state_ == State::kLost || fd < 0) {
    return;
  }
  if (state_ == State::kConnecting && platform::monotonic_ns() > connect_deadline_ns_) {
    lose("cannot reach the coordinator at " + settings_.address + " within 5 s");
    events->push_back(lost_event());
    return;
  }
  pollfd p = {fd, static_cast<short>(POLLIN | (!out_.empty() ? POLLOUT : 0)), 0};
  if (real().poll(&p, 1, wait_ms) > 0) {
    char buf[16384];
    ssize_t n;
    while ((n = real().recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
      in_.append(buf, static_cast<size_t>(n));
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      lose(state_ == State::kConnecting ? "cannot reach the coordinator at " + settings_.address
                                        : "the coordinator closed the connection");
    }
  }
  std::string line;
  Message m;
  std::string why;
  int got;
  while (state_ != State::kLost && (got = in_.next(&line)) != 0) {
    if (got < 0 || !decode(line, &m, &why)) {
      lose("the coordinator sent " + (got < 0 ? std::string("a line over 64 KiB") : why));
      break;
    }
    handle(m, events);
  }
  if (joined() && platform::monotonic_ns() >= next_ping_ns_) {
    ping();
  }
  flush();
  if (state_ == State::kLost) {
    events->push_back(lost_event());
  }
}

void CoordinatorLink::ping() {
  // Often at first (the best of several round trips), then every few seconds as clocks drift.
  uint64_t now = platform::monotonic_ns();
  send(Message("ping").with("t", now));
  next_ping_ns_ = now + (++pings_ < 10 ? 50000000 : 2000000000);
}

void CoordinatorLink::forward_profile() {
  int fd = profile_fd_.load();
  if (!joined() || fd < 0) {
    return;
  }
  char buf[65536];
  bool all_read = false;
  while (out_.under_half()) {
    ssize_t n = pread(fd, buf, sizeof buf, static_cast<off_t>(profile_at_));
    if (n <= 0) {
      all_read = true;
      break;
    }
    profile_at_ += static_cast<uint64_t>(n);
    partial_.append(buf, static_cast<size_t>(n));
    size_t start = 0, end;
    while ((end = partial_.find('\n', start)) != std::string::npos) {
      if (end - start < kMaxLine - 64) {  // a record longer than a message can carry is not sent
        send(Message("rec").with("r", partial_.substr(start, end - start)));
      }
      start = end + 1;
    }
    partial_.erase(0, start);
  }
  drained_ = all_read;
  if (all_read && ended_ != 0) {
    send(Message("ended").with("exp", ended_ - 1));
    ended_ = 0;
  }
  flush();
}

void CoordinatorLink::finish(int ms) {
  if (!ever_joined_) {
    ms = 0;  // nothing of this program's reached the coordinator: no goodbye to wait for
  }
  uint64_t deadline = platform::monotonic_ns() + static_cast<uint64_t>(ms) * 1000000;
  forward_profile();
  while (joined() && !drained_ && platform::monotonic_ns() < deadline) {  // a long backlog
    std::vector<LinkEvent> ignored;
    poll(10, &ignored);
    forward_profile();
  }
  send(Message("bye"));
  while (state_ != State::kLost && !out_.empty() && platform::monotonic_ns() < deadline) {
    std::vector<LinkEvent> ignored;
    poll(10, &ignored);
  }
  own_fds::release(&fd_);
  own_fds::release(&profile_fd_);
  state_ = State::kLost;
}

}  // namespace coz::remote
