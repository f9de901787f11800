// The bounded queue of bytes waiting to go out on a non-blocking socket, one for each side of a
// run across programs (the member's link, remote/coordinator_link.h; each member's connection at
// the coordinator, coz-cli/coordinator/member_connection.h). The one limit is kMaxQueued: a peer
// that lets more wait has stopped reading, and its side gives up on it.
//
// Threading: one thread at a time. Never blocks: flush() sends what the socket takes now.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace coz::remote {

class SendQueue {
 public:
  static constexpr size_t kMaxQueued = size_t{4} << 20;
  // The limit as messages say it: "4 MiB".
  static std::string limit_text();

  // Queues `bytes`. False, queueing nothing, when they would take the queue past kMaxQueued.
  bool push(std::string_view bytes);
  // Sends what waits through `send` (send(2), or the runtime's real one) on non-blocking `fd`,
  // as far as it takes it. 0, or the errno of a failure other than a full socket.
  using SendFunction = ssize_t (*)(int fd, const void* data, size_t size, int flags);
  int flush(int fd, SendFunction send);

  size_t waiting() const { return bytes_.size() - sent_; }
  bool empty() const { return waiting() == 0; }
  // Whether less than half the limit waits (room for a batch of more).
  bool under_half() const { return waiting() < kMaxQueued / 2; }

 private:
  std::string bytes_;
  size_t sent_ = 0;  // the bytes at the front already sent
};

}  // namespace coz::remote
