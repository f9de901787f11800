// Hostile and unlucky profiles given to `coz report` and `coz plot`: huge line numbers, devices,
// FIFOs, huge files and lines, files that are not source, and a page named like its input. Each
// must end quickly, in bounded memory, with a clear message (issue 12, findings 2, 3 and 6).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace coz {
namespace {

using test::ProcessResult;
using test::run_process;
using test::slurp;
using test::TempDir;

// `coz ARGS...` with at most `seconds` of time and `mib` MiB of address space: a hang shows as
// status 124, running out of memory as a crash.
ProcessResult coz_bounded(const std::vector<std::string>& args, int seconds = 20, int mib = 512) {
  std::vector<std::string> argv = {
      "sh",        "-c",      "ulimit -v " + std::to_string(mib * 1024) + " && exec \"$@\"",
      "sh",        "timeout", std::to_string(seconds),
      COZ_TEST_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// A profile with one line measured at five speedups.
std::string five_speedups(const std::string& line) {
  std::string s = "startup\ttime=1\n";
  for (double x : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    s += "experiment\tselected=" + line + "\tspeedup=" + std::to_string(x) +
         "\tduration=1000000000\tselected-samples=1000\nthroughput-point\tname=p\tdelta=" +
         std::to_string(static_cast<int>(1000 / (1 - 0.5 * x))) + "\n";
  }
  return s;
}

TEST(UntrustedProfile, PlotFinishesOnLineNumbersNearTheLimits) {
  TempDir dir;
  std::ofstream(dir.file("p.coz"))
      << five_speedups("a.c:9223372036854775803") << five_speedups("b.c:2147483647")
      << five_speedups("c.c:18446744073709551615") << five_speedups("d.c:-3");
  auto r = coz_bounded({"plot", "-o", dir.file("p.html"), dir.file("p.coz")});
  ASSERT_EQ(r.status, 0) << r.err;  // b.c's line is the largest allowed, and plotted
  EXPECT_NE(r.err.find("p.coz:2: experiment selected line is not FILE:LINE"), std::string::npos)
      << r.err;
  std::string html = slurp(dir.file("p.html"));
  EXPECT_NE(html.find("\"line\": \"b.c:2147483647\""), std::string::npos);
  EXPECT_EQ(html.find("9223372036854775803"), std::string::npos);
  auto report = coz_bounded({"report", "--json", dir.file("p.coz")});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("\"line_number\": 2147483647"), std::string::npos);
}

TEST(UntrustedProfile, DevicesFifosAndDirectoriesGetAClearErrorAtOnce) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), dir.file("fifo"), dir.path()}) {
    std::string what = path + (path == dir.path() ? " is a directory" : " is not a regular file");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"report", path},
          std::vector<std::string>{"plot", "-o", dir.file("x.html"), path}}) {
      auto r = coz_bounded(args, 10, 256);
      EXPECT_EQ(r.status, 2) << args[0] << " " << path << ": " << r.err;
      EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

TEST(UntrustedProfile, HugeFilesAndLinesAreBounded) {
  TempDir dir;
  // Larger than a profile may be: refused before anything is read.
  std::ofstream(dir.file("huge.coz")).close();
  ASSERT_EQ(truncate(dir.file("huge.coz").c_str(), off_t{300} << 20), 0);
  auto huge = coz_bounded({"report", dir.file("huge.coz")}, 10, 256);
  EXPECT_EQ(huge.status, 2) << huge.err;
  EXPECT_NE(
      huge.err.find("huge.coz is 300 MiB, more than the 256 MiB a profile may hold; split it"),
      std::string::npos)
      << huge.err;
  // 64 MiB of zeros with no newline: one overlong line, skipped without being held.
  std::ofstream(dir.file("zeros.coz")).close();
  ASSERT_EQ(truncate(dir.file("zeros.coz").c_str(), off_t{64} << 20), 0);
  auto zeros = coz_bounded({"report", dir.file("zeros.coz")}, 20, 48);
  EXPECT_EQ(zeros.status, 1) << zeros.err;
  EXPECT_NE(zeros.err.find("zeros.coz:1: record too long (more than 1 MiB); skipped"),
            std::string::npos)
      << zeros.err;
  // An overlong line among good ones: only it is skipped.
  std::string good = five_speedups("/src/a.c:10");
  std::ofstream(dir.file("mixed.coz"))
      << good.substr(0, good.find("experiment")) << "warning\tmessage=" << std::string(3 << 20, 'x')
      << "\n"
      << good.substr(good.find("experiment")) << "runtime\ttime=5000000000\n";
  auto mixed =
      coz_bounded({"report", "--json", "--min-points", "2", dir.file("mixed.coz")}, 20, 256);
  EXPECT_EQ(mixed.status, 0) << mixed.err;
  EXPECT_NE(mixed.err.find("mixed.coz:2: record too long"), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.out.find("\"experiments\": 5"), std::string::npos) << mixed.out.substr(0, 2000);
  EXPECT_EQ(mixed.out.find("xxxxxxxx"), std::string::npos);
}

TEST(UntrustedProfile, OutOfRangeNumbersAreSkippedWithTheirLine) {
  TempDir dir;
  std::string text = five_speedups("/src/a.c:10");
  text += "experiment\tselected=/src/a.c:10\tspeedup=0.5\tduration=1e300\tselected-samples=1\n";
  text += "throughput-point\tname=p\tdelta=1\n";
  text += "experiment\tselected=/src/a.c:10\tspeedup=0.5\tduration=1000\tselected-samples=1\n";
  text += "throughput-point\tname=p\tdelta=1e300\n";
  text += "experiment\tselected=/src/a.c:10\tspeedup=50\tduration=1000\tselected-samples=1\n";
  text += "samples\tlocation=/src/a.c:10\tcount=1e308\nruntime\ttime=-1\n";
  std::ofstream(dir.file("n.coz")) << text;
  auto r = coz_bounded({"report", "--json", dir.file("n.coz")});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* line :
       {"n.coz:12: experiment duration", "n.coz:15: a count in this throughput-point",
        "n.coz:16: experiment speedup", "n.coz:17: samples count", "n.coz:18: runtime time"}) {
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  }
  EXPECT_NE(r.out.find("\"experiments\": 6,"), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("\"runtime_ns\": 0,"), std::string::npos) << r.out.substr(0, 3000);
}

TEST(UntrustedProfile, SnippetsOnlyFromSourceFilesAndThePageSaysWhichAreLeftOut) {
  TempDir dir;
  ASSERT_EQ(mkdir(dir.file(".ssh").c_str(), 0700), 0);
  ASSERT_EQ(mkdir(dir.file("src").c_str(), 0700), 0);
  std::ofstream(dir.file(".ssh/id_rsa"))
      << "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEYLINE\nmore\n";
  std::ofstream(dir.file(".ssh/key.c")) << "int hidden;\nSECRET_IN_HIDDEN_C\n";
  std::ofstream(dir.file("data.bin")) << "x\nSECRET_DATA\n";
  std::ofstream(dir.file("src/ok.c")) << "int a;\nint visible_line;\n";
  std::ofstream(dir.file("src/bin.c")) << std::string("int b;\nBINARY\0x\n", 15);
  ASSERT_EQ(symlink("../.ssh/id_rsa", dir.file("src/link.c").c_str()), 0);
  std::string text;
  for (const char* f : {".ssh/id_rsa:2", ".ssh/key.c:2", "data.bin:2", "src/ok.c:2", "src/bin.c:2",
                        "src/link.c:2"}) {
    text += five_speedups(f);
  }
  std::ofstream(dir.file("p.coz")) << text;
  // From the directory that holds .ssh, with the default source root (the current directory).
  std::string cmd = "cd '" + dir.path() + "' && exec \"$0\" plot -o page.html p.coz";
  auto r = run_process({"sh", "-c", cmd, COZ_TEST_CLI});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = slurp(dir.file("page.html"));
  for (const char* secret : {"SECRETKEYLINE", "SECRET_IN_HIDDEN_C", "SECRET_DATA", "BINARY"}) {
    EXPECT_EQ(html.find(secret), std::string::npos) << secret;
  }
  EXPECT_NE(html.find("int visible_line;"), std::string::npos);
  EXPECT_NE(
      r.err.find("coz plot: source not shown for 5 files: .ssh/id_rsa (hidden path), .ssh/key.c "
                 "(hidden path), "
                 "data.bin (not a source file), src/bin.c (not text), src/link.c (hidden path)\n"),
      std::string::npos)
      << r.err;
  // The page's data lists them too, for the viewer's note.
  EXPECT_NE(html.find("id=\"coz-sources-left-out\">["), std::string::npos);
  EXPECT_NE(html.find("\"file\": \"data.bin\",\n    \"reason\": \"not a source file\""),
            std::string::npos);
}

TEST(UntrustedProfile, PlotNeverOverwritesItsInput) {
  TempDir dir;
  std::string profile = five_speedups("/src/a.c:10");
  std::ofstream(dir.file("same.html")) << profile;
  // The default page name of same.html is same.html.
  auto r = run_process({COZ_TEST_CLI, "plot", dir.file("same.html")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the page would overwrite its input " + dir.file("same.html") +
                       "; name the page with -o FILE"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(slurp(dir.file("same.html")) == profile) << "the input was overwritten";
  // Nor by -o, under another name for the same file (a hard link, or a path through '..').
  ASSERT_EQ(link(dir.file("same.html").c_str(), dir.file("other.html").c_str()), 0);
  for (const std::string& out :
       {dir.file("other.html"),
        dir.path() + "/../" + dir.path().substr(dir.path().rfind('/') + 1) + "/same.html"}) {
    auto o = run_process({COZ_TEST_CLI, "plot", "-o", out, dir.file("same.html")});
    EXPECT_EQ(o.status, 2) << out;
    EXPECT_NE(o.err.find("would overwrite its input"), std::string::npos) << o.err;
  }
  EXPECT_TRUE(slurp(dir.file("same.html")) == profile) << "the input was overwritten";
  // A second input counts too.
  std::ofstream(dir.file("a.coz")) << profile;
  auto second = run_process({COZ_TEST_CLI, "plot", "-o", dir.file("same.html"), dir.file("a.coz"),
                             dir.file("same.html")});
  EXPECT_EQ(second.status, 2) << second.err;
  EXPECT_TRUE(slurp(dir.file("same.html")) == profile) << "the input was overwritten";
}

}  // namespace
}  // namespace coz
