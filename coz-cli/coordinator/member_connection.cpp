// A member's connection at the coordinator (see member_connection.h).
#include "coordinator/member_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace coz::coordinator {

MemberConnection::MemberConnection(int socket, std::string from)
    : fd(socket), peer(std::move(from)) {}

MemberConnection::~MemberConnection() {
  close();
}

void MemberConnection::close() {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
  closed = true;
}

void MemberConnection::send(const remote::Message& m) {
  if (closed) {
    return;
  }
  if (!out.push(remote::encode(m))) {
    fprintf(stderr, "coz coordinate: %s took nothing for too long (%s waiting); dropped\n",
            (name.empty() ? peer : name).c_str(), remote::SendQueue::limit_text().c_str());
    close();
  }
}

void MemberConnection::refuse(const std::string& why) {
  if (closed) {
    return;
  }
  send(remote::Message("refused").with("why", why));
  flush();
  fprintf(stderr, "coz coordinate: refused %s: %s\n", (name.empty() ? peer : name).c_str(),
          why.c_str());
  close();
}

bool MemberConnection::receive() {
  char buf[65536];
  while (!closed) {
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      in.append(buf, static_cast<size_t>(n));
      if (in.buffered() > 2 * remote::kMaxLine) {
        return true;  // the loop reads the lines before more arrives
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return true;
    }
    return false;  // closed (0) or failed
  }
  return false;
}

void MemberConnection::flush() {
  if (!closed && out.flush(fd, ::send) != 0) {
    close();
  }
}

}  // namespace coz::coordinator
