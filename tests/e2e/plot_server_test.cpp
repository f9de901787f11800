// `coz plot --serve` under hostile clients: Host headers in any case, or twice, from a page
// reached through another name (DNS rebinding), and more connections than descriptors (issue 12,
// finding 6).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "test_support.h"

namespace coz {
namespace {

using test::TempDir;

// A `coz plot --serve` process: its pid and port; `nofile` limits its descriptors.
class Server {
 public:
  explicit Server(const std::string& stderr_file, rlim_t nofile = 0) {
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
      execl(COZ_TEST_CLI, COZ_TEST_CLI, "plot", "--serve", profile.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    std::string first;
    pollfd p{out[0], POLLIN, 0};
    char c;
    while (first.find('\n') == std::string::npos && poll(&p, 1, 20000) > 0 && read(out[0], &c, 1) == 1) {
      first.push_back(c);
    }
    close(out[0]);
    if (sscanf(first.c_str(), "http://127.0.0.1:%d/", &port_) != 1) {
      port_ = 0;
    }
  }
  ~Server() {
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

TEST(PlotServer, HostHeaderIsCheckedWhateverItsCase) {
  TempDir dir;
  Server server(dir.file("err"));
  ASSERT_NE(server.port(), 0);
  std::string port = std::to_string(server.port());
  auto get = [&](const std::string& headers) { return server.status("GET / HTTP/1.1\r\n" + headers + "\r\n"); };
  for (std::string name : {"Host", "HOST", "host", "hOsT"}) {
    EXPECT_EQ(get(name + ": evil.com\r\n"), "HTTP/1.1 403 Forbidden") << name;
    EXPECT_EQ(get(name + ": EVIL.com:" + port + "\r\n"), "HTTP/1.1 403 Forbidden") << name;
    EXPECT_EQ(get(name + ":127.0.0.1:" + port + "\r\n"), "HTTP/1.1 200 OK") << name;
    EXPECT_EQ(get(name + ": LocalHost:" + port + " \r\n"), "HTTP/1.1 200 OK") << name;
  }
  // Two Host headers, whichever is first, or a name with a space before its colon: a bad request.
  EXPECT_EQ(get("Host: 127.0.0.1\r\nhost: evil.com\r\n"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(get("HOST: evil.com\r\nHost: 127.0.0.1\r\n"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(get("Host : evil.com\r\n"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(get("Accept: */*\r\nX-Forwarded-Host: 127.0.0.1\r\nHost: evil.com\r\n"), "HTTP/1.1 403 Forbidden");
}

TEST(PlotServer, KeepsServingWhenOutOfDescriptors) {
  TempDir dir;
  Server server(dir.file("err"), 16);
  ASSERT_NE(server.port(), 0);
  // More idle connections than the server has descriptors: accept() fails with EMFILE.
  std::vector<int> idle;
  for (int i = 0; i < 24; i++) {
    int fd = server.connect_to();
    if (fd >= 0) {
      idle.push_back(fd);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(server.running()) << "the server exited when out of descriptors";
  for (int fd : idle) {
    close(fd);
  }
  std::string status;
  for (int attempt = 0; attempt < 50 && status != "HTTP/1.1 200 OK"; attempt++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    status = server.status("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }
  EXPECT_EQ(status, "HTTP/1.1 200 OK");
  EXPECT_TRUE(server.running());
  std::ifstream err(dir.file("err"));
  std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("cannot accept a connection (Too many open files); retrying"), std::string::npos) << text;
}

}  // namespace
}  // namespace coz
