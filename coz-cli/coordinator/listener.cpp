// Listening for members (see listener.h).
#include "coordinator/listener.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "remote/address.h"

namespace coz::coordinator {

int listen_on(const std::string& address, bool has_secret, std::string* shown, uint16_t* port,
              std::string* why) {
  std::string host, service;
  if (!remote::split_host_port(address, &host, &service)) {
    *why = "--listen " + address + " is not HOST:PORT (for example 127.0.0.1:7000)";
    return -1;
  }
  addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || !found) {
    *why = "--listen " + address + ": no such address or port";
    return -1;
  }
  bool loopback =
      (found->ai_family == AF_INET &&
       (ntohl(reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr.s_addr) >> 24) == 127) ||
      (found->ai_family == AF_INET6 &&
       IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr));
  if (!loopback && !has_secret) {
    freeaddrinfo(found);
    *why = "listening on " + address +
           " lets other hosts join: give the run a shared secret (COZ_SECRET, or --secret-file "
           "FILE), the same on every member";
    return -1;
  }
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) {
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  }
  bool ok = fd >= 0 && bind(fd, found->ai_addr, found->ai_addrlen) == 0 && listen(fd, 64) == 0;
  freeaddrinfo(found);
  if (!ok) {
    *why = "cannot listen on " + address + " (" + strerror(errno) + ")";
    if (fd >= 0) {
      close(fd);
    }
    return -1;
  }
  sockaddr_storage bound = {};
  socklen_t len = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  *port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  *shown = host;
  return fd;
}

std::unique_ptr<MemberConnection> accept_one(int listen_fd) {
  sockaddr_storage from = {};
  socklen_t len = sizeof from;
  int fd =
      accept4(listen_fd, reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    return nullptr;
  }
  char host[NI_MAXHOST] = "?", port[NI_MAXSERV] = "?";
  getnameinfo(reinterpret_cast<sockaddr*>(&from), len, host, sizeof host, port, sizeof port,
              NI_NUMERICHOST | NI_NUMERICSERV);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return std::make_unique<MemberConnection>(fd, std::string(host) + ":" + port);
}

void write_port_file(const std::string& path, uint16_t port) {
  std::string tmp = path + ".tmp";
  if (FILE* f = fopen(tmp.c_str(), "w")) {
    fprintf(f, "%u\n", port);
    fclose(f);
    rename(tmp.c_str(), path.c_str());
  }
}

}  // namespace coz::coordinator
