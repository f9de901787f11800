// `coz plot --serve` under hostile clients: Host headers in any case, or twice, from a page
// reached through another name (DNS rebinding), and more connections than descriptors (issue 12,
// finding 6).
#include "e2e/plot_server.h"

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
using Server = test::PlotServer;

TEST(PlotServer, HostHeaderIsCheckedWhateverItsCase) {
  TempDir dir;
  Server server(dir.file("err"));
  ASSERT_NE(server.port(), 0);
  std::string port = std::to_string(server.port());
  auto get = [&](const std::string& headers) {
    return server.status("GET / HTTP/1.1\r\n" + headers + "\r\n");
  };
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
  EXPECT_EQ(get("Accept: */*\r\nX-Forwarded-Host: 127.0.0.1\r\nHost: evil.com\r\n"),
            "HTTP/1.1 403 Forbidden");
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
  EXPECT_NE(text.find("cannot accept a connection (Too many open files); retrying"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace coz
