// `coz run` and `coz report` where the program or its surroundings misbehave (issue 24): signals
// the program sends to its own process group, --until-confident that can never finish, a
// background job on a `stty tostop` terminal, the runtime under a path the loader splits, the
// profile removed during the run, and a hostile profile's names on the terminal.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <fstream>

#include "e2e/profile_helpers.h"

namespace coz {
namespace {

using test::fixture;
using test::records_of;
using test::run_process;
using test::slurp;
using test::TempDir;

// Writes `source` to dir/name.c and builds it with debug information; the program's path.
std::string build_program(const TempDir& dir, const std::string& name, const std::string& source) {
  std::ofstream(dir.file(name + ".c")) << source;
  std::string include = std::string(COZ_TEST_PROGRAMS_SRC) + "/../../include";
  std::string cmd =
      "cc -g -O1 -I'" + include + "' -o '" + dir.file(name) + "' '" + dir.file(name + ".c") + "'";
  EXPECT_EQ(system(cmd.c_str()), 0) << cmd;
  return dir.file(name);
}

// Spins for `ms` of CPU time, visiting a progress point (or not) every millisecond.
const char* kSpin = R"(
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "coz.h"
static volatile unsigned long sink;
static void spin(int ms, int progress) {
  clock_t end = clock() + (clock_t)ms * CLOCKS_PER_SEC / 1000;
  while (clock() < end) {
    for (int i = 0; i < 100000; i++) sink = sink * 2654435761ul + i;
    if (progress) { COZ_PROGRESS; }
  }
}
)";

// The program sends signals it handles to its own process group (coz's too): coz survives each,
// and passes none on, so the program sees each once (issue 24, findings 1 and 2).
TEST(CozRunSignals, ProgramSignalsToItsOwnGroupReachItOnceAndSpareCoz) {
  TempDir dir;
  std::string program = build_program(dir, "group", std::string(kSpin) + R"(
static volatile sig_atomic_t got[65];
static void on(int s) { got[s]++; }
int main(void) {
  int sigs[] = {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGIO, SIGTSTP, SIGTTIN,
                SIGTTOU, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGRTMIN + 1, SIGRTMAX};
  int n = sizeof sigs / sizeof sigs[0];
  for (int i = 0; i < n; i++) signal(sigs[i], on);
  spin(150, 1);
  for (int i = 0; i < n; i++) kill(0, sigs[i]);
  spin(150, 1);
  for (int i = 0; i < n; i++) printf("%d:%d ", sigs[i], (int)got[sigs[i]]);
  printf("\n");
  return 0;
}
)");
  // In a session of its own, so that the program's group is not this test's.
  auto native = run_process({"setsid", "-w", program}, "", {});
  auto r = run_process({"setsid", "-w", COZ_TEST_CLI, "run", "--experiment-length", "20ms", "-o",
                        dir.file("p.coz"), "---", program},
                       "", {});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, native.out) << r.err;
  EXPECT_EQ(native.out.find(":2"), std::string::npos) << native.out;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

// Without a progress point no run can tell lines apart: --until-confident says so after the
// first run and stops (issue 24, finding 3).
TEST(RepeatedRuns, UntilConfidentStopsAfterOneRunWithoutAProgressPoint) {
  TempDir dir;
  std::string program = build_program(dir, "noprogress", std::string(kSpin) + R"(
int main(void) { spin(300, 0); return 0; }
)");
  auto r = run_process({COZ_TEST_CLI, "run", "--until-confident", "--experiment-length", "20ms",
                        "-o", dir.file("p.coz"), "---", program});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("--until-confident stops after run 1: more runs cannot help: no progress "
                       "point was ever visited"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(records_of(dir.file("p.coz"), RecordKind::kStartup).size(), 1u) << r.err;
}

// A background job (a process group other than the terminal's foreground one) on a terminal
// with `stty tostop`: coz draws no status line and is never stopped by its writes; the job
// finishes as the program alone would (issue 24, finding 4).
TEST(StatusLine, BackgroundJobOnATostopTerminalIsNeitherDrawnNorStopped) {
  TempDir dir;
  std::string program = build_program(dir, "silent", std::string(kSpin) + R"(
int main(void) { spin(400, 1); return 0; }
)");
  winsize size = {};
  size.ws_row = 24;
  size.ws_col = 100;
  int master = -1;
  pid_t session = forkpty(&master, nullptr, nullptr, &size);
  if (session == 0) {
    termios t;
    tcgetattr(STDIN_FILENO, &t);
    t.c_lflag |= TOSTOP;
    tcsetattr(STDIN_FILENO, TCSANOW, &t);
    setenv("TERM", "xterm", 1);
    pid_t job = fork();
    if (job == 0) {
      setpgid(0, 0);  // the job's own group; the terminal's foreground group stays this one's
      test::exec_or_exit({COZ_TEST_CLI, "run", "--experiment-length", "20ms", "-o",
                          dir.file("p.coz"), "---", program});
    }
    setpgid(job, job);
    int status = 0;
    waitpid(job, &status, WUNTRACED);
    if (WIFSTOPPED(status)) {
      kill(-job, SIGKILL);
      _exit(99);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 98);
  }
  ASSERT_GT(session, 0);
  std::string output;
  char buf[4096];
  for (;;) {
    pollfd p = {master, POLLIN, 0};
    if (poll(&p, 1, 30000) <= 0) {
      break;
    }
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) {
      break;
    }
    output.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  waitpid(session, &status, 0);
  close(master);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "99: the job was stopped\n" << output;
  EXPECT_EQ(output.find("\x1b[1;23r"), std::string::npos) << "drawn from the background";
  EXPECT_NE(output.find("coz: profile written to"), std::string::npos) << output;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty());
}

// The loader splits LD_PRELOAD at spaces and colons and expands $LIB in it: a runtime under
// such a path is reached through a link, and the program is profiled (issue 24, finding 5).
TEST(CozRunRuntime, UnderAPathTheLoaderWouldSplit) {
  TempDir dir;
  std::string odd = dir.file("a b:c$LIB");
  ASSERT_EQ(mkdir(odd.c_str(), 0755), 0);
  // The runtime and the module it loads to read line tables, which lies beside it.
  std::string runtime_dir = COZ_TEST_RUNTIME;
  runtime_dir.resize(runtime_dir.rfind('/'));
  std::string copy = "cp '" + std::string(COZ_TEST_RUNTIME) + "' '" + runtime_dir +
                     "/libcoz-dwarf.so' '" + odd + "/'";
  ASSERT_EQ(system(copy.c_str()), 0);
  auto r = run_process({COZ_TEST_CLI, "run", "--experiment-length", "30ms", "-o", dir.file("p.coz"),
                        "---", fixture("two_hot"), "60"},
                       "", {{"COZ_RUNTIME", odd + "/libcoz.so"}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("ld.so"), std::string::npos) << r.err;
  EXPECT_FALSE(records_of(dir.file("p.coz"), RecordKind::kExperiment).empty()) << r.err;
}

// The profile is removed while the program runs: coz says so, and saves what the runtime went on
// writing into the removed file beside it (issue 24, finding 11).
TEST(CozRunOutput, ProfileRemovedDuringTheRunIsSavedAndNamed) {
  TempDir dir;
  pid_t coz = fork();
  if (coz == 0) {
    freopen(dir.file("err").c_str(), "w", stderr);
    freopen("/dev/null", "w", stdout);
    test::exec_or_exit({COZ_TEST_CLI, "run", "--experiment-length", "30ms", "-o", dir.file("p.coz"),
                        "---", fixture("two_hot"), "150"});
  }
  // Removed once the runtime has written its first experiment (the program computes for 0.9 s
  // of CPU time, experiments are 30 ms): mid-run on a CPU of any speed.
  auto has_experiment = [&] {
    std::vector<Record> records;
    std::vector<ParseError> errors;
    if (access(dir.file("p.coz").c_str(), F_OK) != 0 ||
        !read_profile(dir.file("p.coz"), &records, &errors)) {
      return false;
    }
    for (const Record& r : records) {
      if (r.kind == RecordKind::kExperiment) {
        return true;
      }
    }
    return false;
  };
  for (int i = 0; i < 6000 && !has_experiment(); i++) {
    usleep(10 * 1000);
  }
  ASSERT_EQ(unlink(dir.file("p.coz").c_str()), 0) << "no experiment written within a minute";
  int status = 0;
  waitpid(coz, &status, 0);
  std::string err = slurp(dir.file("err"));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << err;
  std::string saved = dir.file("p.recovered.coz");
  EXPECT_NE(err.find("the profile " + dir.file("p.coz") + " was removed during run 1"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("saved as " + saved), std::string::npos) << err;
  EXPECT_EQ(err.find("did not start"), std::string::npos) << err;
  EXPECT_FALSE(records_of(saved, RecordKind::kExperiment).empty()) << err;
  EXPECT_FALSE(records_of(saved, RecordKind::kRuntime).empty()) << err;
}

// A hostile profile's names hold escape sequences (a window title, clear screen, colours, C1
// CSI): the table, the CSV and every message on stderr show them escaped (issue 24, finding 12).
TEST(CozReport, NamesFromTheProfileNeverReachTheTerminalAsControls) {
  TempDir dir;
  std::string point = "\x1b[31mred\x1b[0m";
  std::string file =
      "\x1b]0;pwned\x07\xc2\x9b"
      "2Jevil.c";
  std::string profile = "startup\ttime=1\tformat=1\tpid=1\tsampling-period=1000000\n";
  for (const char* speedup : {"0.00", "0.10", "0.20", "0.50", "1.00", "0.00", "0.10"}) {
    profile += std::string("experiment\tselected=") + file + ":12\tspeedup=" + speedup +
               "\tduration=1000000000\tselected-samples=100\n" + "throughput-point\tname=" + point +
               "\tdelta=1000\n";
  }
  profile += "runtime\ttime=5000000000\nbogus \x1b[2J record\n";
  std::ofstream(dir.file("h.coz"), std::ios::binary) << profile;
  for (std::vector<std::string> args :
       {std::vector<std::string>{"report"}, std::vector<std::string>{"report", "--csv"}}) {
    args.insert(args.begin(), COZ_TEST_CLI);
    args.push_back(dir.file("h.coz"));
    auto r = run_process(args);
    for (const std::string& text : {r.out, r.err}) {
      for (char c : std::string("\x1b\x07")) {
        EXPECT_EQ(text.find(c), std::string::npos) << args[1] << ": " << text;
      }
      EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << text;
    }
    EXPECT_NE(r.out.find("\\x1b[31mred"), std::string::npos) << "shown escaped: " << r.out;
    EXPECT_NE(r.err.find("h.coz:17"), std::string::npos) << "the bad line reported: " << r.err;
  }
}

}  // namespace
}  // namespace coz
