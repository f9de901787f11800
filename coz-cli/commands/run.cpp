// `coz run` (see run.h): preflight checks, environment for the runtime, fork/exec/wait.
#include "commands/run.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "commands/preflight.h"
#include "commands/report.h"
#include "commands/run_options.h"
#include "runtime/config.h"

#ifndef COZ_BIN_TO_LIB
#define COZ_BIN_TO_LIB "../lib"
#endif

namespace coz::cli {
namespace {

int fail(const std::string& message, int status) {
  fprintf(stderr, "coz: error: %s\n", message.c_str());
  return status;
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') {
    return path;
  }
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    out += (out.empty() ? "" : ",") + s;
  }
  return out;
}

off_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

pid_t g_child = -1;
volatile sig_atomic_t g_stop = 0;  // the user asked to stop: no further runs of a sweep

// Ctrl-C from the terminal (SI_KERNEL) reaches the program through its process group; coz only
// remembers it. Sent to coz alone (kill: SI_USER, sigqueue: SI_QUEUE), it is passed on, as
// SIGTERM is.
void on_interrupt(int sig, siginfo_t* info, void*) {
  g_stop = 1;
  if (info && info->si_code <= 0 && info->si_pid != g_child && g_child > 0) {
    kill(g_child, sig);
  }
}

void forward_signal(int sig) {
  g_stop = 1;
  if (g_child > 0) {
    kill(g_child, sig);
  }
}

// Dies of the signal that killed the program, so a calling shell sees the same fate (bash stops
// a loop on a child killed by SIGINT, not on one that exited 130). No core dump of coz itself.
void die_like(int sig) {
  fflush(nullptr);
  rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by ") + strsignal(WTERMSIG(status));
  }
  return "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

std::string format_load(double load) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", load);
  return buf;
}

// Forks and execs the program with the runtime preloaded; the child's pid, or -1 and `error`.
pid_t start_program(RunOptions& options, const Program& program, const std::string& runtime,
                    const std::string& output, double load, std::string* error) {
  fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    *error = std::string("cannot start the program: ") + strerror(errno);
    return -1;
  }
  if (child == 0) {
    for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) {
      signal(sig, SIG_DFL);
    }
    // Settings left in the environment by the user or an outer `coz run` must not leak in.
    for (const char* key : {env::kBinaryScope, env::kSourceScope, env::kIncludeSystem,
                            env::kEndToEnd, env::kFixedLine, env::kFixedSpeedup, env::kVerbose,
                            env::kExperimentLength, env::kZeroSpeedupShare, env::kArrivalSpeedup,
                            env::kLoad, env::kBreakpointProgress, env::kSampledProgress}) {
      unsetenv(key);
    }
    std::string preload = runtime;
    if (const char* old = getenv("LD_PRELOAD"); old && *old) {
      preload += ":" + std::string(old);
    }
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv(env::kOutput, output.c_str(), 1);
    setenv(env::kRootPid, std::to_string(getpid()).c_str(), 1);
    setenv(env::kRunId, std::to_string(getppid()).c_str(), 1);  // this coz: see run_summary
    setenv(env::kSamplingPeriod, std::to_string(options.sampling_period_ns).c_str(), 1);
    if (!options.binary_scope.empty()) {
      setenv(env::kBinaryScope, join(options.binary_scope).c_str(), 1);
    }
    if (!options.source_scope.empty()) {
      setenv(env::kSourceScope, join(options.source_scope).c_str(), 1);
    }
    if (options.include_system) {
      setenv(env::kIncludeSystem, "1", 1);
    }
    if (options.end_to_end) {
      setenv(env::kEndToEnd, "1", 1);
    }
    if (!options.fixed_line.empty()) {
      setenv(env::kFixedLine, options.fixed_line.c_str(), 1);
    }
    if (options.fixed_speedup >= 0) {
      setenv(env::kFixedSpeedup, std::to_string(options.fixed_speedup).c_str(), 1);
    }
    if (options.verbose) {
      setenv(env::kVerbose, "1", 1);
    }
    if (options.experiment_length_ns > 0) {
      setenv(env::kExperimentLength, std::to_string(options.experiment_length_ns).c_str(), 1);
    }
    if (options.zero_speedup_share >= 0) {
      setenv(env::kZeroSpeedupShare, std::to_string(options.zero_speedup_share).c_str(), 1);
    }
    if (options.arrival_speedup_ns > 0) {
      setenv(env::kArrivalSpeedup, std::to_string(options.arrival_speedup_ns).c_str(), 1);
    }
    if (load > 0) {
      setenv(env::kLoad, format_load(load).c_str(), 1);
    }
    if (!options.breakpoint_progress.empty()) {
      setenv(env::kBreakpointProgress, join(options.breakpoint_progress).c_str(), 1);
    }
    if (!options.sampled_progress.empty()) {
      setenv(env::kSampledProgress, join(options.sampled_progress).c_str(), 1);
    }
    std::vector<char*> argv;
    for (std::string& a : options.command) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    setenv(env::kExecTime, std::to_string(now.tv_sec * 1000000000ll + now.tv_nsec).c_str(), 1);
    execv(program.path.c_str(), argv.data());
    int err = errno;
    fprintf(stderr, "coz: error: cannot run %s: %s\n", program.path.c_str(), strerror(err));
    _exit(err == ENOENT ? kExitNotFound : kExitNotExecutable);
  }

  return child;
}

}  // namespace

std::string executable_dir() {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    return "";
  }
  std::string path(exe, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::string find_runtime(std::string* looked_in) {
  if (const char* forced = getenv("COZ_RUNTIME")) {
    *looked_in = forced;
    return access(forced, R_OK) == 0 ? forced : "";
  }
  std::string dir = executable_dir();
  if (dir.empty()) {
    return "";
  }
  for (const std::string& candidate :
       {dir + "/" COZ_BIN_TO_LIB "/libcoz.so", dir + "/../lib/libcoz.so", dir + "/libcoz.so"}) {
    *looked_in += (looked_in->empty() ? "" : ", ") + candidate;
    if (access(candidate.c_str(), R_OK) == 0) {
      char real[PATH_MAX];
      return realpath(candidate.c_str(), real) ? real : candidate;
    }
  }
  return "";
}

int run_command(const std::vector<std::string>& args) {
  RunOptions options;
  std::string error;
  if (!parse_run_options(args, &options, &error)) {
    return fail(error, kExitUsage);
  }
  if (options.help) {
    fputs(kRunUsage, stdout);
    return 0;
  }
  std::string looked_in;
  std::string runtime = find_runtime(&looked_in);
  if (runtime.empty()) {
    return fail("cannot find the runtime libcoz.so (looked in " + looked_in +
                    "); reinstall, or set COZ_RUNTIME to its path",
                kExitCannotProfile);
  }
  Program program;
  if (!resolve_program(options.command[0], &program, &error)) {
    return fail(error, errno == EACCES || error.find("not executable") != std::string::npos
                           ? kExitNotExecutable
                           : kExitNotFound);
  }
  if (!check_preloadable(program, &error) || !check_debug_info(program, options, &error) ||
      !check_perf_event(&error)) {
    return fail(error, kExitCannotProfile);
  }
  std::string output = absolute(options.output);
  if (!check_output_writable(output, &error)) {
    return fail(error, kExitCannotProfile);
  }

  // Ctrl-C and friends reach the whole process group; let the program decide what to do and
  // report its fate. Requests sent to coz alone are passed on. Installed before the fork so no
  // request can fall in between.
  struct sigaction interrupt = {};
  interrupt.sa_sigaction = on_interrupt;
  interrupt.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&interrupt.sa_mask);
  sigaction(SIGINT, &interrupt, nullptr);
  sigaction(SIGQUIT, &interrupt, nullptr);
  signal(SIGTERM, forward_signal);
  signal(SIGHUP, forward_signal);

  // One run, or a sweep: every load level (or none) times --runs, appended to one profile.
  std::vector<double> levels = options.loads.empty() ? std::vector<double>{0} : options.loads;
  size_t total = levels.size() * static_cast<size_t>(options.runs), done = 0;
  int status = 0;
  int failed_status = 0;  // the last failed run's, which --keep-going reports at the end
  bool stopped = false;
  off_t first_size = file_size(output);
  for (size_t level = 0; level < levels.size() && !stopped; level++) {
    double load = levels[level];
    for (int r = 0; r < options.runs && !stopped; r++) {
      done++;
      if (total > 1) {
        fprintf(stderr, "coz: run %zu of %zu%s\n", done, total,
                load > 0 ? (" at load " + format_load(load)).c_str() : "");
      }
      off_t size_before = file_size(output);
      pid_t child = start_program(options, program, runtime, output, load, &error);
      if (child < 0) {
        return fail(error, kExitCannotProfile);
      }
      g_child = child;
      status = 0;
      while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
          return fail(std::string("lost track of the program: ") + strerror(errno),
                      kExitCannotProfile);
        }
      }
      g_child = -1;
      if (file_size(output) <= size_before) {
        fprintf(stderr,
                "coz: no profile was written to %s: the profiler did not start in the program "
                "(any reason is above; a program that gains privileges ignores it)\n",
                output.c_str());
      }
      bool failed = WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
      if (failed) {
        failed_status = status;
      }
      if (g_stop && done < total) {
        fprintf(stderr, "coz: interrupted, so the remaining %zu runs were skipped\n", total - done);
        stopped = true;
      } else if (failed && done < total && !options.keep_going) {
        fprintf(stderr,
                "coz: run %zu failed (%s), so the remaining %zu runs were skipped; --keep-going "
                "runs them anyway\n",
                done, describe_status(status).c_str(), total - done);
        stopped = true;
      } else if (failed && done < total) {
        fprintf(stderr, "coz: run %zu failed (%s); going on (--keep-going)\n", done,
                describe_status(status).c_str());
      }
    }
  }
  if (file_size(output) > first_size) {
    fputs(run_summary(output, static_cast<uint64_t>(std::max<off_t>(first_size, 0)),
                      static_cast<uint64_t>(getpid()))
              .c_str(),
          stderr);
  }
  if (failed_status != 0) {
    status = failed_status;  // one failed run fails the whole command, as with make -k
  }
  if (WIFSIGNALED(status)) {
    die_like(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace coz::cli
