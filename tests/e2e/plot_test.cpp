// `coz plot` from the command line: one self-contained page, source snippets, the default output
// name, and `--serve` on 127.0.0.1 only, refusing every path but the report's. The page itself is
// tested in Chromium (tests/browser).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "e2e/plot_server.h"
#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::golden;
using test::run_process;
using test::slurp;
using test::TempDir;

TEST(CozPlot, WritesOneSelfContainedPage) {
  TempDir dir;
  std::string page = dir.file("t.html");
  auto r = run_process({COZ_TEST_CLI, "plot", "-o", page, golden("throughput.coz")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, page + "\n");
  std::string html = slurp(page);
  EXPECT_NE(html.find("\"schema\": \"coz-amp-report\""), std::string::npos);
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos) << "the libraries are inlined";
  EXPECT_EQ(html.find("<script src"), std::string::npos) << "nothing is loaded from elsewhere";
  EXPECT_EQ(html.find("<!--coz:"), std::string::npos) << "every placeholder is filled";
  EXPECT_EQ(html.find("COZ_NONCE"), std::string::npos);
}

TEST(CozPlot, ProfileStringsCannotEndTheDataScript) {
  TempDir dir;
  std::string page = dir.file("h.html");
  auto r = run_process({COZ_TEST_CLI, "plot", "-o", page, golden("hostile.coz")});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = slurp(page);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("<script>window.__xss"), std::string::npos);
  EXPECT_NE(html.find("\\u003cimg src=x onerror=window.__xss=1>"), std::string::npos);
}

TEST(CozPlot, EmbedsTheLinesAroundEachProfiledLineUnlessAskedNot) {
  TempDir dir;
  std::string source = test::program_source("two_hot.c");
  int line = test::marker_line(source, "hot_a");
  std::ofstream(dir.file("p.coz")) << "startup\ttime=1\n"
                                   <<
      [&] {
        std::string s;
        for (double x : {0.0, 0.25, 0.5, 0.75, 1.0}) {
          s +=
              "experiment\tselected=" + source + ":" + std::to_string(line) +
              "\tspeedup=" + std::to_string(x) +
              "\tduration=1000000000\tselected-samples=1000\nthroughput-point\tname=round\tdelta=" +
              std::to_string(static_cast<int>(1000 / (1 - 0.5 * x))) + "\n";
        }
        return s;
      }();
  // Without -o, the page goes next to the profile with .html.
  auto r = run_process(
      {COZ_TEST_CLI, "plot", "--source-root", COZ_TEST_PROGRAMS_SRC, dir.file("p.coz")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, dir.file("p.html") + "\n");
  std::string html = slurp(dir.file("p.html"));
  EXPECT_NE(html.find("v = v * 2654435761ul + i; /* LINE:hot_a */"), std::string::npos);
  EXPECT_NE(html.find("\"" + std::to_string(line - 4) + "\": "), std::string::npos)
      << "four lines of context";
  auto bare = run_process(
      {COZ_TEST_CLI, "plot", "--no-source", "-o", dir.file("q.html"), dir.file("p.coz")});
  ASSERT_EQ(bare.status, 0) << bare.err;
  EXPECT_EQ(slurp(dir.file("q.html")).find("LINE:hot_a"), std::string::npos);
  // Files outside the source root are not read.
  auto outside = run_process({COZ_TEST_CLI, "plot", "--source-root", dir.path(), "-o",
                              dir.file("r.html"), dir.file("p.coz")});
  ASSERT_EQ(outside.status, 0) << outside.err;
  EXPECT_EQ(slurp(dir.file("r.html")).find("LINE:hot_a"), std::string::npos);
}

TEST(CozPlot, NeverEmbedsSystemFilesAProfileNames) {
  TempDir dir;
  std::string text = "startup\ttime=1\n";
  for (const char* file : {"/proc/self/environ", "/etc/passwd"}) {
    for (double x : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      text += "experiment\tselected=" + std::string(file) + ":1\tspeedup=" + std::to_string(x) +
              "\tduration=1000000000\tselected-samples=1000\nthroughput-point\tname=p\tdelta=" +
              std::to_string(static_cast<int>(1000 / (1 - 0.5 * x))) + "\n";
    }
  }
  std::ofstream(dir.file("evil.coz")) << text;
  // Even with the whole file system as the source root.
  auto r = run_process(
      {COZ_TEST_CLI, "plot", "--source-root", "/", "-o", dir.file("e.html"), dir.file("evil.coz")},
      "", {{"COZ_SECRET_FOR_TEST", "do-not-leak"}});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = slurp(dir.file("e.html"));
  EXPECT_EQ(html.find("do-not-leak"), std::string::npos);
  EXPECT_EQ(html.find("root:x:0:0"), std::string::npos)
      << "--source-root / allows only source files";
  EXPECT_NE(r.err.find("/etc/passwd (not a source file)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/proc/self/environ (system file)"), std::string::npos) << r.err;
  auto here = run_process({COZ_TEST_CLI, "plot", "-o", dir.file("f.html"), dir.file("evil.coz")});
  EXPECT_EQ(slurp(dir.file("f.html")).find("root:x:0:0"), std::string::npos) << "nor by default";
}

TEST(CozPlot, ClearErrors) {
  TempDir dir;
  auto missing = run_process({COZ_TEST_CLI, "plot", dir.file("none.coz")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("cannot read " + dir.file("none.coz")), std::string::npos)
      << missing.err;
  auto viewer =
      run_process({COZ_TEST_CLI, "plot", "-o", dir.file("x.html"), golden("throughput.coz")}, "",
                  {{"COZ_VIEWER_DIR", dir.file("no-viewer")}});
  EXPECT_EQ(viewer.status, 2);
  EXPECT_NE(viewer.err.find("is incomplete"), std::string::npos) << viewer.err;
  auto place = run_process(
      {COZ_TEST_CLI, "plot", "-o", dir.file("no/such/dir.html"), golden("throughput.coz")});
  EXPECT_EQ(place.status, 2);
  EXPECT_NE(place.err.find("cannot write"), std::string::npos) << place.err;
}

// A build without the WebAssembly toolchain (COZ_PAGE_READER=AUTO, as the demo's) has a viewer
// without coz-reader.wasm: its pages show their profile all the same, with an empty reader.
TEST(CozPlot, ViewerWithoutTheReader) {
  TempDir dir;
  std::string cli = COZ_TEST_CLI;
  std::string viewer = cli.substr(0, cli.rfind('/')) + "/../share/coz-amp/viewer";
  std::string copy = dir.file("viewer");
  ASSERT_EQ(run_process({"cp", "-r", viewer, copy}).status, 0);
  ASSERT_EQ(std::remove((copy + "/coz-reader.wasm").c_str()), 0) << "the tests' build has a reader";
  auto r = run_process({COZ_TEST_CLI, "plot", "-o", dir.file("p.html"), golden("throughput.coz")},
                       "", {{"COZ_VIEWER_DIR", copy}});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = slurp(dir.file("p.html"));
  EXPECT_NE(html.find("id=\"coz-reader\"></script>"), std::string::npos);
  EXPECT_NE(html.find("id=\"coz-report\""), std::string::npos);
}

// Sends one request to the server and returns the whole response.
std::string http_get(const test::PlotServer& server, const std::string& target) {
  int fd = server.connect_to();
  if (fd < 0) {
    return "";
  }
  std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  send(fd, request.data(), request.size(), 0);
  std::string response;
  char buf[65536];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
    response.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return response;
}

TEST(CozPlot, ServesOnLoopbackOnlyAndOnlyTheReport) {
  test::PlotServer server("/dev/null");
  int port = server.port();
  ASSERT_GT(port, 0);

  std::string page = http_get(server, "/");
  EXPECT_EQ(page.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << page.substr(0, 200);
  EXPECT_NE(page.find("coz-amp-report"), std::string::npos);
  for (const char* other :
       {"/../../../etc/passwd", "/etc/passwd", "/index.html/../x", "/profile.coz"}) {
    std::string r = http_get(server, other);
    EXPECT_EQ(r.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u) << other << ": " << r.substr(0, 200);
    EXPECT_EQ(r.find("root:"), std::string::npos) << other;
  }
  // A page reached through another host name (DNS rebinding) is refused.
  int fd = server.connect_to();
  ASSERT_GE(fd, 0);
  std::string rebound = "GET / HTTP/1.1\r\nHost: evil.example:" + std::to_string(port) + "\r\n\r\n";
  send(fd, rebound.data(), rebound.size(), 0);
  char buf[256] = {};
  recv(fd, buf, sizeof buf - 1, MSG_WAITALL);
  close(fd);
  EXPECT_EQ(std::string(buf).rfind("HTTP/1.1 403", 0), 0u) << buf;
  // A client that sends nothing does not block the next one.
  int idle = server.connect_to();
  ASSERT_GE(idle, 0);
  EXPECT_EQ(http_get(server, "/").rfind("HTTP/1.1 200 OK", 0), 0u);
  close(idle);

  // The listening socket is bound to 127.0.0.1 (0100007F in /proc/net/tcp), not to every address.
  char hex_port[8];
  snprintf(hex_port, sizeof hex_port, "%04X", port);
  std::string tcp = slurp("/proc/net/tcp");
  EXPECT_NE(tcp.find("0100007F:" + std::string(hex_port) + " 00000000:0000 0A"), std::string::npos)
      << tcp;
  EXPECT_EQ(tcp.find("00000000:" + std::string(hex_port) + " 00000000:0000 0A"), std::string::npos)
      << tcp;
  EXPECT_EQ(slurp("/proc/net/tcp6").find(":" + std::string(hex_port) + " "), std::string::npos);
}

}  // namespace
}  // namespace coz
