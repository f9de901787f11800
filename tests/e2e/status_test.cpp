// `coz run` on a terminal: the live status line, --quiet, and the runs --budget and
// --until-confident repeat. The terminal is a real pseudo-terminal (forkpty).
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <regex>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::line_name;
using test::records_of;
using test::run_process;
using test::TempDir;

struct TerminalRun {
  int status = -1;
  std::string output;  // everything the terminal received
};

// Runs `argv` on a new 24x100 pseudo-terminal (stdin, stdout and stderr) until it exits.
TerminalRun run_on_terminal(const std::vector<std::string>& argv) {
  TerminalRun run;
  winsize size = {};
  size.ws_row = 24;
  size.ws_col = 100;
  int master = -1;
  pid_t child = forkpty(&master, nullptr, nullptr, &size);
  if (child == 0) {
    setenv("TERM", "xterm", 1);
    test::exec_or_exit(argv);
  }
  if (child < 0) {
    return run;
  }
  char buf[4096];
  for (;;) {
    pollfd p = {master, POLLIN, 0};
    if (poll(&p, 1, 60000) <= 0) {
      break;  // a minute without output: give up (the test then fails on what it has)
    }
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) {
      break;  // EIO: the last process on the terminal closed it
    }
    run.output.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  waitpid(child, &status, 0);
  close(master);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// Runs `argv` as the controlling process of a new pseudo-terminal (as a terminal emulator or
// `ssh -t` starts a command), waits for its first `round` line, then hangs the terminal up. Returns
// the wait status.
int hang_up_on(const std::vector<std::string>& argv) {
  int master = -1;
  pid_t child = forkpty(&master, nullptr, nullptr, nullptr);
  if (child == 0) {
    test::exec_or_exit(argv);
  }
  if (child < 0) {
    return -1;
  }
  std::string seen;
  char buf[4096];
  while (seen.find("round") == std::string::npos) {
    pollfd p = {master, POLLIN, 0};
    ssize_t n = poll(&p, 1, 60000) > 0 ? read(master, buf, sizeof buf) : -1;
    if (n <= 0) {
      break;
    }
    seen.append(buf, static_cast<size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(child, &status, 0);
  return status;
}

const std::regex kStatusUpdate(
    "\x1b"
    "7\x1b\\[24;1H\x1b\\[2K([^\x1b]*)\x1b"
    "8");

TEST(StatusLine, LiveOnTheBottomRowAndNeverInTheProgramsOutput) {
  TempDir dir;
  TerminalRun run = run_on_terminal(
      {COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("two_hot"), "300", "chatty"});
  ASSERT_EQ(run.status, 0) << run.output;
  // The bottom row is kept out of the scrolling region while the program runs, and given back.
  EXPECT_NE(run.output.find("\x1b[1;23r"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("\x1b[r"), std::string::npos) << run.output;
  std::vector<std::string> texts;
  for (std::sregex_iterator it(run.output.begin(), run.output.end(), kStatusUpdate), end; it != end;
       ++it) {
    if ((*it)[1].length() > 0) {  // an empty one clears the row at the end
      texts.push_back((*it)[1]);
    }
  }
  ASSERT_GE(texts.size(), 2u) << run.output;
  bool counted = false;
  for (const std::string& t : texts) {
    EXPECT_EQ(t.rfind("coz: ", 0), 0u) << t;
    EXPECT_LE(t.size(), 99u) << t;
    counted = counted || t.find(" experiments |") != std::string::npos;
  }
  EXPECT_TRUE(counted) << texts.back();
  // Without the status updates, the program's lines arrive whole and in order.
  std::string rest = std::regex_replace(run.output, kStatusUpdate, "");
  std::string expected;
  for (int r = 0; r < 300; r++) {
    expected += "round " + std::to_string(r) + "\r\n";
  }
  expected += "done 300 rounds\r\n";
  EXPECT_NE(rest.find(expected), std::string::npos) << rest;
  EXPECT_NE(rest.find("coz: profile written to"), std::string::npos) << rest;
}

TEST(StatusLine, ATerminalThatHangsUpEndsTheProgramAsWithoutCoz) {
  // The kernel signals the terminal's controlling process: natively the program, here coz, which
  // passes it on. The program dies of SIGHUP, and coz dies as it did.
  int native = hang_up_on({fixture("two_hot"), "3000", "chatty"});
  ASSERT_TRUE(WIFSIGNALED(native) && WTERMSIG(native) == SIGHUP) << "natively: status " << native;
  TempDir dir;
  int profiled = hang_up_on(
      {COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("two_hot"), "3000", "chatty"});
  EXPECT_TRUE(WIFSIGNALED(profiled) && WTERMSIG(profiled) == SIGHUP)
      << "profiled: status " << profiled;
}

TEST(StatusLine, NoneWhenQuietOrNotATerminal) {
  TempDir dir;
  TerminalRun quiet = run_on_terminal(
      {COZ_TEST_CLI, "run", "--quiet", "-o", dir.file("q.coz"), "---", fixture("two_hot"), "30"});
  ASSERT_EQ(quiet.status, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find('\x1b'), std::string::npos) << quiet.output;
  EXPECT_EQ(quiet.output.find("profile written"), std::string::npos) << quiet.output;
  EXPECT_NE(quiet.output.find("done 30 rounds"), std::string::npos) << quiet.output;
  auto piped =
      run_process({COZ_TEST_CLI, "run", "-o", dir.file("p.coz"), "---", fixture("two_hot"), "30"});
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.err.find('\x1b'), std::string::npos) << piped.err;
  EXPECT_NE(piped.err.find("profile written"), std::string::npos) << piped.err;
}

TEST(RepeatedRuns, BudgetRunsTheProgramAgainUntilItIsUsed) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  auto r = run_process(
      {COZ_TEST_CLI, "run", "--budget", "2s", "-o", profile, "---", fixture("two_hot"), "30"});
  ASSERT_EQ(r.status, 0) << r.err;
  size_t runs = records_of(profile, RecordKind::kStartup).size();
  EXPECT_GE(runs, 2u) << r.err;
  EXPECT_NE(r.err.find("coz: after run 1: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" lines with enough data"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the budget of 2s is used after " + std::to_string(runs) + " runs"),
            std::string::npos)
      << r.err;
  // --runs caps a budget.
  auto capped = run_process({COZ_TEST_CLI, "run", "--budget", "1h", "--runs", "2", "-o",
                             dir.file("c.coz"), "---", fixture("two_hot"), "10"});
  ASSERT_EQ(capped.status, 0) << capped.err;
  EXPECT_EQ(records_of(dir.file("c.coz"), RecordKind::kStartup).size(), 2u) << capped.err;
  auto bad = run_process({COZ_TEST_CLI, "run", "--budget", "soon", "---", fixture("two_hot")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--budget 'soon' must be a time such as 90s"), std::string::npos)
      << bad.err;
}

// A profile whose best line is already told apart stops --until-confident after one run: the
// rule reads the whole profile the runs append to.
TEST(RepeatedRuns, UntilConfidentStopsOnceTheBestLineIsToldApart) {
  TempDir dir;
  std::string profile = dir.file("p.coz");
  {
    std::ofstream out(profile);
    out << "startup\ttime=1\n";
    const std::string a = line_name("two_hot.c", "hot_a"), b = line_name("two_hot.c", "hot_b");
    for (int k = 0; k < 12; k++) {
      for (double x : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        for (const auto& [line, effect] : {std::pair{a, 0.6}, std::pair{b, 0.1}}) {
          long visits = std::lround(1000 / (1 - effect * x) * (1 + 0.002 * (k % 3)));
          out << "experiment\tselected=" << line << "\tspeedup=" << x
              << "\tduration=1000000000\tselected-samples=500\nthroughput-point\tname=round\tdelta="
              << visits << "\n";
        }
      }
    }
  }
  // On a terminal, as a user would run it: the status line runs alongside.
  TerminalRun r = run_on_terminal({COZ_TEST_CLI, "run", "--until-confident", "--budget", "5m", "-o",
                                   profile, "---", fixture("two_hot"), "30"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("told apart after 1 run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("top: two_hot.c:"), std::string::npos) << r.output;
  EXPECT_EQ(records_of(profile, RecordKind::kStartup).size(), 2u);
}

}  // namespace
}  // namespace coz
