// The bounded send queue (see send_queue.h).
#include "remote/send_queue.h"

#include <errno.h>
#include <sys/socket.h>

namespace coz::remote {

std::string SendQueue::limit_text() {
  return std::to_string(kMaxQueued >> 20) + " MiB";
}

bool SendQueue::push(std::string_view bytes) {
  if (waiting() + bytes.size() > kMaxQueued) {
    return false;
  }
  bytes_.append(bytes);
  return true;
}

int SendQueue::flush(int fd, SendFunction send) {
  int failed = 0;
  while (fd >= 0 && sent_ < bytes_.size()) {
    ssize_t n = send(fd, bytes_.data() + sent_, bytes_.size() - sent_, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) {
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        failed = errno;
      }
      break;
    }
    sent_ += static_cast<size_t>(n);
  }
  if (sent_ == bytes_.size()) {
    bytes_.clear();
    sent_ = 0;
  } else if (sent_ > (size_t{1} << 20)) {
    bytes_.erase(0, sent_);  // a long backlog: what was sent stops taking memory
    sent_ = 0;
  }
  return failed;
}

}  // namespace coz::remote
