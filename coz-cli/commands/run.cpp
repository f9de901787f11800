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

#include "commands/output_watch.h"
#include "commands/preflight.h"
#include "commands/preload_path.h"
#include "commands/run_options.h"
#include "commands/run_progress.h"
#include "commands/run_summary.h"
#include "commands/signal_relay.h"
#include "commands/status_line.h"
#include "common/command_line.h"
#include "common/install_paths.h"
#include "output/terminal_text.h"

namespace coz::cli {
namespace {

const char* const kWho = "coz run";

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

// Says that the profile's path no longer names the file the runtime writes, and saves that
// file's content; the copy's path, or empty.
std::string report_lost_output(const OutputWatch& watch, const std::string& output, size_t run,
                               bool written) {
  const char* what = watch.removed() ? "removed" : "moved or replaced";
  if (watch.size() <= 0) {
    fprintf(stderr,
            "coz: error: the profile %s was %s during run %zu, before anything was written\n",
            output.c_str(), what, run);
    return "";
  }
  std::string error;
  std::string copy = watch.save_copy(&error);
  if (copy.empty()) {
    fprintf(stderr,
            "coz: error: the profile %s was %s during run %zu, and what it held is lost: %s; keep "
            "the profile's directory until coz run ends\n",
            output.c_str(), what, run, error.c_str());
    return "";
  }
  fprintf(stderr,
          "coz: warning: the profile %s was %s during run %zu%s; what it held is saved as %s (see "
          "coz report %s)\n",
          output.c_str(), what, run,
          written ? ", and the runtime went on writing into the file it had opened" : "",
          copy.c_str(), copy.c_str());
  return copy;
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
                    const std::string& output, double load, SignalRelay* relay,
                    std::string* error) {
  fflush(nullptr);
  relay->hold();
  pid_t child = fork();
  if (child < 0) {
    relay->started(-1);
    *error = std::string("cannot start the program: ") + strerror(errno);
    return -1;
  }
  if (child == 0) {
    relay->in_child();
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
  relay->started(child);
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
    return fail(kWho,
                "cannot find the runtime libcoz.so (looked in " + looked_in +
                    "); reinstall, or set COZ_RUNTIME to its path",
                kExitCannotProfile);
  }
  PreloadPath preload;
  if (!preload.prepare(runtime, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  Program program;
  if (!resolve_program(options.command[0], &program, &error)) {
    return fail(kWho, error,
                errno == EACCES || error.find("not executable") != std::string::npos
                    ? kExitNotExecutable
                    : kExitNotFound);
  }
  if (!check_preloadable(program, &error) || !check_debug_info(program, options.config, &error) ||
      !check_perf_event(&error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  std::string output = absolute(options.config.output);
  if (!check_output_writable(output, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }

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
  OutputWatch watch(output);
  std::string profile = output;  // where the profile is read back: a saved copy once lost
  off_t first_size = watch.size();
  timespec started;
  clock_gettime(CLOCK_MONOTONIC, &started);
  // Ctrl-C and friends reach the whole process group; let the program decide what to do and
  // report its fate. Requests sent to coz alone are passed on (signal_relay.h). Before the status
  // line, so that it is closed while coz's writes cannot stop it.
  SignalRelay relay(!options.quiet);
  StatusLine status_line(options.quiet ? -1 : STDERR_FILENO);
  RunProgress progress;
  off_t progress_size = -1;
  double progress_at = -1e9;  // the first look reads the profile at once
  // Redraws the status line; reads the profile again when it grew, at most every two seconds.
  auto update_status = [&] {
    if (relay.take_resized()) {
      status_line.resized();
    }
    double now = seconds_since(started);
    off_t size = watch.size();
    if (size != progress_size && now - progress_at >= 2 && !watch.lost()) {
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
      off_t size_before = watch.size();
      pid_t child = start_program(options, program, preload.path(), output, load, &relay, &error);
      if (child < 0) {
        return fail(kWho, error, kExitCannotProfile);
      }
      status = 0;
      for (;;) {
        // Without a status line coz just waits; with one it looks in a few times a second.
        pid_t got = waitpid(child, &status, status_line.active() ? WNOHANG : 0);
        if (got == child) {
          break;
        }
        if (got < 0 && errno != EINTR) {
          return fail(kWho, std::string("lost track of the program: ") + strerror(errno),
                      kExitCannotProfile);
        }
        if (got == 0) {
          update_status();
          timespec tick = {0, 250000000};
          nanosleep(&tick, nullptr);
        }
      }
      relay.finished();
      bool lost = watch.lost();
      if (lost) {
        profile = report_lost_output(watch, output, done, watch.size() > size_before);
      } else if (watch.size() <= size_before) {
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
        progress = read_progress(profile);
        progress_size = file_size(profile);
        if (!options.quiet) {
          fprintf(stderr,
                  "coz: after run %zu: %zu experiments, %zu of %zu lines with enough data%s\n",
                  done, progress.experiments, progress.lines_shown, progress.lines_tested,
                  progress.top.empty() ? "" : ("; top " + progress.top).c_str());
        }
      }
      if (repeat && more && !relay.stop_requested() && !(failed && !options.keep_going)) {
        if (options.until_confident && !progress.hopeless.empty()) {
          fprintf(stderr, "coz: --until-confident stops after run %zu: more runs cannot help: %s\n",
                  done, progress.hopeless.c_str());
          more = false;
          stopped = true;
        } else if (options.until_confident) {
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
      if (lost && more) {
        fprintf(stderr, "coz: the remaining runs were skipped: the profile's path is gone\n");
        stopped = true;
      } else if (relay.stop_requested() && more) {
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
  if (!profile.empty() && file_size(profile) > first_size && !options.quiet) {
    std::string summary =
        run_summary(profile, static_cast<uint64_t>(std::max<off_t>(first_size, 0)),
                    static_cast<uint64_t>(getpid()));
    fputs(output::terminal_safe_lines(summary).c_str(), stderr);
  }
  if (failed_status != 0) {
    status = failed_status;  // one failed run fails the whole command, as with make -k
  }
  if (WIFSIGNALED(status)) {
    preload.remove();  // no destructor runs after this
    die_like(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace coz::cli
