// A one-page HTTP server for `coz plot --serve`, bound to 127.0.0.1 only (see plot.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "commands/plot.h"
#include "common/command_line.h"

extern char** environ;

namespace coz::cli {
namespace {

void send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) {
        continue;
      }
      return;
    }
    sent += static_cast<size_t>(n);
  }
}

std::string response(const char* status, const char* type, const std::string& body, bool head) {
  std::string r =
      std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
      "\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  return head ? r : r + body;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

enum class HostCheck { kAllowed, kForeign, kBad };

// The Host a browser sends for this server; anything else (a DNS-rebinding page) is refused.
// Header names are case-insensitive (HTTP), and so are host names; two Host headers, or a header
// name with spaces, make the request bad.
HostCheck check_host(const std::string& request, int port) {
  size_t head_end = request.find("\r\n\r\n");
  std::string_view head(request.data(), head_end == std::string::npos ? request.size() : head_end);
  size_t at = head.find("\r\n");  // after the request line
  int hosts = 0;
  std::string_view host;
  while (at != std::string_view::npos) {
    size_t start = at + 2;
    at = head.find("\r\n", start);
    std::string_view line =
        head.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    size_t colon = line.find(':');
    if (line.empty() || line[0] == ' ' || line[0] == '\t') {
      continue;  // an obsolete folded continuation: part of the header before
    }
    if (colon == std::string_view::npos) {
      return HostCheck::kBad;
    }
    std::string_view name = line.substr(0, colon);
    if (name.find_first_of(" \t") != std::string_view::npos) {
      return HostCheck::kBad;
    }
    if (equal_ignoring_case(name, "host")) {
      hosts++;
      host = line.substr(colon + 1);
      while (!host.empty() && (host.front() == ' ' || host.front() == '\t')) {
        host.remove_prefix(1);
      }
      while (!host.empty() && (host.back() == ' ' || host.back() == '\t')) {
        host.remove_suffix(1);
      }
    }
  }
  if (hosts > 1) {
    return HostCheck::kBad;
  }
  if (hosts == 0) {
    return HostCheck::kAllowed;  // HTTP/1.0 without Host: only a local program can have connected
  }
  std::string p = ":" + std::to_string(port);
  for (std::string name : {"127.0.0.1", "localhost"}) {
    if (equal_ignoring_case(host, name) || equal_ignoring_case(host, name + p)) {
      return HostCheck::kAllowed;
    }
  }
  return HostCheck::kForeign;
}

void answer(int fd, const std::string& html, int port) {
  // One deadline for the whole request, so a client sending a byte at a time cannot hold it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::string request;
  char buf[4096];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, left) <= 0) {
      return;
    }
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) {
        continue;
      }
      break;
    }
    request.append(buf, static_cast<size_t>(n));
  }
  size_t sp1 = request.find(' ');
  size_t sp2 = sp1 == std::string::npos ? sp1 : request.find(' ', sp1 + 1);
  if (sp2 == std::string::npos) {
    send_all(fd, response("400 Bad Request", "text/plain", "bad request\n", false));
    return;
  }
  std::string method = request.substr(0, sp1), target = request.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find_first_of("?#"));
  bool head = method == "HEAD";
  if (method != "GET" && !head) {
    send_all(fd, response("405 Method Not Allowed", "text/plain", "only GET\n", false));
  } else if (HostCheck host = check_host(request, port); host == HostCheck::kBad) {
    send_all(fd, response("400 Bad Request", "text/plain", "bad request\n", head));
  } else if (host == HostCheck::kForeign) {
    send_all(fd, response("403 Forbidden", "text/plain",
                          "this report is served to 127.0.0.1 only\n", head));
  } else if (target == "/" || target == "/index.html") {
    send_all(fd, response("200 OK", "text/html; charset=utf-8", html, head));
  } else {
    // The report is one page: nothing else, and no file of this machine, is served.
    send_all(fd, response("404 Not Found", "text/plain", "not found\n", head));
  }
}

}  // namespace

bool open_in_browser(const std::string& target) {
  // Not waited for: some xdg-open setups return only when the browser closes. Children are
  // reaped by the kernel (SIGCHLD ignored).
  signal(SIGCHLD, SIG_IGN);
  pid_t pid;
  const char* argv[] = {"xdg-open", target.c_str(), nullptr};
  return posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char* const*>(argv),
                      environ) == 0;
}

int serve_page(const std::string& html, bool open_browser) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return fail("coz plot", std::string("cannot open a socket: ") + strerror(errno), kExitUsage);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // never another interface
  addr.sin_port = 0;                              // a free port
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int err = errno;
    close(fd);
    return fail("coz plot", std::string("cannot listen on 127.0.0.1: ") + strerror(err),
                kExitUsage);
  }
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/";
  printf("%s\n", url.c_str());
  fflush(stdout);
  tell("coz plot", "serving the report at " + url + " on this machine only; Ctrl-C stops");
  if (open_browser && !open_in_browser(url)) {
    tell("coz plot", "could not start a browser (xdg-open); open " + url + " yourself");
  }
  // One thread per connection, so a slow client never blocks another.
  std::atomic<int> clients{0};
  constexpr int kMaxClients = 32;
  bool short_of_resources = false;  // said once, not for every retry
  for (;;) {
    int client = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK || errno == EFAULT ||
          errno == EOPNOTSUPP) {
        int err = errno;
        close(fd);
        return fail("coz plot", std::string("accept failed: ") + strerror(err), kExitUsage);
      }
      // Out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), or a network error on
      // one connection: keep serving. Connections being answered close within seconds.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        if (!short_of_resources) {
          tell("coz plot", std::string("warning: cannot accept a connection (") + strerror(errno) +
                               "); retrying");
          short_of_resources = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
      continue;
    }
    if (clients.load() >= kMaxClients) {
      close(client);  // a flood of connections is turned away rather than queued
      continue;
    }
    timeval timeout{10, 0};  // a client that stops reading cannot hold its thread for ever
    setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    clients++;
    int port = ntohs(addr.sin_port);
    try {
      std::thread([client, &html, &clients, port] {
        answer(client, html, port);
        close(client);
        clients--;
      }).detach();
    } catch (const std::system_error&) {
      // No thread to be had: turn this one away and let the others finish.
      close(client);
      clients--;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
}

}  // namespace coz::cli
