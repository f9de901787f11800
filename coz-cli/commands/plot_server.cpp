// A one-page HTTP server for `coz plot --serve`, bound to 127.0.0.1 only (see plot.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "commands/plot.h"

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
  std::string r = std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
                  "\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  return head ? r : r + body;
}

void answer(int fd, const std::string& html) {
  std::string request;
  char buf[4096];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
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
  } else if (target == "/" || target == "/index.html") {
    send_all(fd, response("200 OK", "text/html; charset=utf-8", html, head));
  } else {
    // The report is one page: nothing else, and no file of this machine, is served.
    send_all(fd, response("404 Not Found", "text/plain", "not found\n", head));
  }
}

}  // namespace

bool open_in_browser(const std::string& target) {
  pid_t pid;
  const char* argv[] = {"xdg-open", target.c_str(), nullptr};
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) {
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int serve_page(const std::string& html, bool open_browser) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    fprintf(stderr, "coz plot: error: cannot open a socket: %s\n", strerror(errno));
    return 2;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // never another interface
  addr.sin_port = 0;                               // a free port
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    fprintf(stderr, "coz plot: error: cannot listen on 127.0.0.1: %s\n", strerror(errno));
    close(fd);
    return 2;
  }
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/";
  printf("%s\n", url.c_str());
  fflush(stdout);
  fprintf(stderr, "coz plot: serving the report at %s on this machine only; Ctrl-C stops\n", url.c_str());
  if (open_browser && !open_in_browser(url)) {
    fprintf(stderr, "coz plot: could not start a browser (xdg-open); open %s yourself\n", url.c_str());
  }
  for (;;) {
    int client = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) {
        continue;
      }
      fprintf(stderr, "coz plot: error: accept failed: %s\n", strerror(errno));
      close(fd);
      return 2;
    }
    timeval timeout{5, 0};  // a silent client cannot hold the server
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    answer(client, html);
    close(client);
  }
}

}  // namespace coz::cli
