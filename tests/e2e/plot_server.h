// A `coz plot --serve` process for end-to-end tests: started on the golden throughput profile,
// with its port read from the URL it prints; stopped when the object goes.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace coz::test {

// A `coz plot --serve` process: its pid and port; `nofile` limits its descriptors.
class PlotServer {
 public:
  explicit PlotServer(const std::string& stderr_file, rlim_t nofile = 0) {
    int out[2];
    if (pipe(out) != 0) {
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      int err = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(err, 2);
      if (nofile > 0) {
        rlimit limit{nofile, nofile};
        setrlimit(RLIMIT_NOFILE, &limit);
      }
      std::string profile = std::string(COZ_TEST_GOLDEN) + "/throughput.coz";
      execl(COZ_TEST_CLI, COZ_TEST_CLI, "plot", "--serve", profile.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    std::string first;
    pollfd p{out[0], POLLIN, 0};
    char c;
    while (first.find('\n') == std::string::npos && poll(&p, 1, 20000) > 0 &&
           read(out[0], &c, 1) == 1) {
      first.push_back(c);
    }
    close(out[0]);
    if (sscanf(first.c_str(), "http://127.0.0.1:%d/", &port_) != 1) {
      port_ = 0;
    }
  }
  ~PlotServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  int port() const { return port_; }
  bool running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

  int connect_to() const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }

  // The status line of the answer to `request` (the whole request head), or "" when none came.
  std::string status(const std::string& request) const {
    int fd = connect_to();
    if (fd < 0) {
      return "";
    }
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string response;
    char buf[65536];
    pollfd p{fd, POLLIN, 0};
    while (poll(&p, 1, 10000) > 0) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) {
        break;
      }
      response.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return response.substr(0, response.find("\r\n"));
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace coz::test
