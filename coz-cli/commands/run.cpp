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
#include "commands/run_options.h"
#include "commands/run_progress.h"
#include "commands/run_summary.h"
#include "commands/status_line.h"
#include "common/install_paths.h"

namespace coz::cli {
namespace {

int fail(const std::string& message, int status) {
  fprintf(stderr, "coz run: error: %s\n", message.c_str());
  return status;
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') {
    return path;
  }
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

off_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

pid_t g_child = -1;
volatile sig_atomic_t g_stop = 0;     // the user asked to stop: no further runs of a sweep
volatile sig_atomic_t g_resized = 0;  // SIGWINCH: the status line follows the terminal

void on_resize(int) {
  g_resized = 1;
}

double seconds_since(const timespec& start) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec - start.tv_sec) +
         static_cast<double>(now.tv_nsec - start.tv_nsec) / 1e9;
}

// Rounded to whole seconds, as format_seconds() shows them.
int rounded(double seconds) {
  return static_cast<int>(seconds + 0.5);
}

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
    // Every setting is exported, and those at their default unset, so settings left in the
    // environment by the user or an outer `coz run` cannot leak in.
    RunConfig config = options.config;
    config.output = output;
    config.load = load;
    config.root_pid = static_cast<uint64_t>(getpid());
    config.run_id = static_cast<uint64_t>(getppid());  // this coz: see run_summary
    std::string preload = runtime;
    if (const char* old = getenv("LD_PRELOAD"); old && *old) {
      preload += ":" + std::string(old);
    }
    setenv("LD_PRELOAD", preload.c_str(), 1);
    std::vector<char*> argv;
    for (std::string& a : options.command) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    config.exec_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
    export_to_environment(config);
    execv(program.path.c_str(), argv.data());
    int err = errno;
    fprintf(stderr, "coz run: error: cannot run %s: %s\n", program.path.c_str(), strerror(err));
    _exit(err == ENOENT ? kExitNotFound : kExitNotExecutable);
  }

  return child;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  CLI::App app("", "coz run");
  RunOptions options;
  setup_run_app(&app, &options);
  std::string error;
  Parsed parsed = parse_run_options(&app, args, &options, &error);
  if (int status = act_on_parse(app, parsed, error); status >= 0) {
    return status;
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
  if (!check_preloadable(program, &error) || !check_debug_info(program, options.config, &error) ||
      !check_perf_event(&error)) {
    return fail(error, kExitCannotProfile);
  }
  std::string output = absolute(options.config.output);
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

  // One run, or a sweep: every load level (or none) times --runs, appended to one profile; or,
  // with --budget / --until-confident, the one run again and again until told to stop.
  std::vector<double> levels = options.loads.empty() ? std::vector<double>{0} : options.loads;
  const bool repeat = options.budget_s > 0;
  const int runs = repeat && !options.runs_given ? INT_MAX : options.runs;
  size_t total = repeat ? (options.runs_given ? static_cast<size_t>(runs) : 0)
                        : levels.size() * static_cast<size_t>(runs);  // 0: not known
  size_t done = 0;
  int status = 0;
  int failed_status = 0;  // the last failed run's, which --keep-going reports at the end
  bool stopped = false;
  off_t first_size = file_size(output);
  timespec started;
  clock_gettime(CLOCK_MONOTONIC, &started);
  StatusLine status_line(options.quiet ? -1 : STDERR_FILENO);
  if (status_line.active()) {
    signal(SIGWINCH, on_resize);
  }
  RunProgress progress;
  off_t progress_size = -1;
  double progress_at = -1e9;  // the first look reads the profile at once
  // Redraws the status line; reads the profile again when it grew, at most every two seconds.
  auto update_status = [&] {
    if (g_resized) {
      g_resized = 0;
      status_line.resized();
    }
    double now = seconds_since(started);
    off_t size = file_size(output);
    if (size != progress_size && now - progress_at >= 2) {
      progress = read_progress(output);
      progress_size = size;
      progress_at = now;
    }
    status_line.show(status_text(progress, now, done, total));
  };
  for (size_t level = 0; level < levels.size() && !stopped; level++) {
    double load = levels[level];
    for (int r = 0; r < runs && !stopped; r++) {
      done++;
      if (total > 1 || (repeat && done > 1)) {
        std::string of = total ? " of " + std::to_string(total) : "";
        std::string left =
            repeat ? ", " + format_seconds(rounded(options.budget_s - seconds_since(started))) +
                         " of the budget left"
                   : "";
        fprintf(stderr, "coz: run %zu%s%s%s\n", done, of.c_str(),
                load > 0 ? (" at load " + format_load(load)).c_str() : "", left.c_str());
      }
      off_t size_before = file_size(output);
      pid_t child = start_program(options, program, runtime, output, load, &error);
      if (child < 0) {
        return fail(error, kExitCannotProfile);
      }
      g_child = child;
      status = 0;
      for (;;) {
        // Without a status line coz just waits; with one it looks in a few times a second.
        pid_t got = waitpid(child, &status, status_line.active() ? WNOHANG : 0);
        if (got == child) {
          break;
        }
        if (got < 0 && errno != EINTR) {
          return fail(std::string("lost track of the program: ") + strerror(errno),
                      kExitCannotProfile);
        }
        if (got == 0) {
          update_status();
          timespec tick = {0, 250000000};
          nanosleep(&tick, nullptr);
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
      bool more = total ? done < total : true;
      if (total > 1 || repeat) {
        // Each run of several says where the profile stands (and --until-confident reads it).
        progress = read_progress(output);
        progress_size = file_size(output);
        if (!options.quiet) {
          fprintf(stderr,
                  "coz: after run %zu: %zu experiments, %zu of %zu lines with enough data%s\n",
                  done, progress.experiments, progress.lines_shown, progress.lines_tested,
                  progress.top.empty() ? "" : ("; top " + progress.top).c_str());
        }
      }
      if (repeat && more && !g_stop && !(failed && !options.keep_going)) {
        if (options.until_confident) {
          if (progress.separated) {
            fprintf(stderr,
                    "coz: the best line of each progress point is told apart after %zu run%s "
                    "(%s): done\n",
                    done, done == 1 ? "" : "s",
                    format_seconds(rounded(seconds_since(started))).c_str());
            more = false;
            stopped = true;
          }
        }
        if (more && seconds_since(started) >= options.budget_s) {
          fprintf(stderr, "coz: the budget of %s is used after %zu run%s%s\n",
                  format_seconds(rounded(options.budget_s)).c_str(), done, done == 1 ? "" : "s",
                  options.until_confident ? ", before the best lines were told apart" : "");
          more = false;
          stopped = true;
        }
      }
      if (g_stop && more) {
        fprintf(stderr, "coz: interrupted, so the %s runs were skipped\n",
                total ? ("remaining " + std::to_string(total - done)).c_str() : "remaining");
        stopped = true;
      } else if (failed && more && !options.keep_going) {
        std::string remaining = total ? " " + std::to_string(total - done) : "";
        fprintf(stderr,
                "coz: run %zu failed (%s), so the remaining%s runs were skipped; --keep-going "
                "runs them anyway\n",
                done, describe_status(status).c_str(), remaining.c_str());
        stopped = true;
      } else if (failed && more) {
        fprintf(stderr, "coz: run %zu failed (%s); going on (--keep-going)\n", done,
                describe_status(status).c_str());
      }
    }
  }
  status_line.close();
  if (file_size(output) > first_size && !options.quiet) {
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
