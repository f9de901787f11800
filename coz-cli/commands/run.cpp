// `coz run` (see run.h): preflight checks, environment for the runtime, fork/exec/wait, and after
// each run one reading of the profile and the next step (run_plan.h).
#include "commands/run.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/platform.h"
#include "commands/exit_summary.h"
#include "commands/lost_output.h"
#include "commands/output_watch.h"
#include "commands/preflight.h"
#include "commands/preload_path.h"
#include "commands/run_options.h"
#include "commands/run_plan.h"
#include "commands/run_progress.h"
#include "commands/signal_relay.h"
#include "commands/status_line.h"
#include "common/command_line.h"
#include "common/install_paths.h"
#include "config/run_config.h"
#include "output/terminal_text.h"

namespace coz::cli {
namespace {

const char* const kWho = "coz run";

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

// What the runs of one command share: the checked options, where the profile goes, and what
// `coz run` holds while the program runs.
struct Session {
  RunOptions options;
  Program program;
  PreloadPath preload;
  std::string output;  // absolute
  RunPlan plan;
};

// Parses and checks everything before the first run; -1 to go on, else the exit status.
int prepare(const std::vector<std::string>& args, Session* s) {
  CLI::App app("", kWho);
  setup_run_app(&app, &s->options);
  std::string error;
  Parsed parsed = parse_run_options(&app, args, &s->options, &error);
  if (int status = act_on_parse(app, parsed, error); status >= 0) {
    return status;
  }
  std::string runtime = find_runtime(&error);
  if (runtime.empty()) {
    return fail(kWho, error, kExitCannotProfile);
  }
  if (!s->preload.prepare(runtime, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  if (!resolve_program(s->options.command[0], &s->program, &error)) {
    return fail(kWho, error,
                errno == EACCES || error.find("not executable") != std::string::npos
                    ? kExitNotExecutable
                    : kExitNotFound);
  }
  if (!check_preloadable(s->program, &error) ||
      !check_debug_info(s->program, s->options.config, &error) ||
      !check_sampler(s->options.config, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  s->output = platform::absolute_path(s->options.config.output);
  if (!check_output_writable(s->output, &error)) {
    return fail(kWho, error, kExitCannotProfile);
  }
  // One run, or a sweep: every load level (or none) times --runs, appended to one profile; or,
  // with --budget / --until-confident, the one run again and again until told to stop.
  const RunOptions& o = s->options;
  s->plan.levels = o.loads.empty() ? 1 : o.loads.size();
  s->plan.repeat = o.budget_s > 0;
  s->plan.runs = s->plan.repeat && !o.runs_given ? 0 : static_cast<size_t>(o.runs);
  s->plan.budget_s = o.budget_s;
  s->plan.until_confident = o.until_confident;
  s->plan.keep_going = o.keep_going;
  return -1;
}

// The run's file of /dev/shm a root that could spare no descriptor made (config/run_config.h),
// left behind if it was killed before its end.
void remove_run_files_of(pid_t root) {
  std::string prefix = std::string(kSharedRunFilePrefix) + std::to_string(root) + ".";
  std::string dir = prefix.substr(0, prefix.rfind('/') + 1);
  std::string name = prefix.substr(dir.size());
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (strncmp(e->d_name, name.c_str(), name.size()) == 0) {
        unlink((dir + e->d_name).c_str());
      }
    }
    closedir(d);
  }
}

// Forks and execs the program with the runtime preloaded; the child's pid, or -1 and `error`.
pid_t start_program(const Session& s, double load, SignalRelay* relay, std::string* error) {
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
    RunConfig config = s.options.config;
    config.output = s.output;
    config.load = load;
    config.root_pid = static_cast<uint64_t>(getpid());
    config.run_id = static_cast<uint64_t>(getppid());  // this coz: see read_after_run
    // The user's preloads go first, as they would natively: a library of theirs that wraps a
    // function the runtime hooks (pthread_create) sees the program's calls, then reaches ours.
    std::string preload = s.preload.path();
    if (const char* old = getenv("LD_PRELOAD"); old && *old) {
      preload = std::string(old) + ":" + s.preload.path();
    }
    setenv("LD_PRELOAD", preload.c_str(), 1);
    unsetenv("COZ_SHARED");  // an outer run's, when this coz runs inside a profiled program
    std::vector<char*> argv;
    for (const std::string& a : s.options.command) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    config.exec_ns = platform::monotonic_ns();  // the runtime's start-up time counts from here
    export_to_environment(config);
    execv(s.program.path.c_str(), argv.data());
    int err = errno;
    fprintf(stderr, "coz run: error: cannot run %s: %s\n", s.program.path.c_str(), strerror(err));
    _exit(err == ENOENT ? kExitNotFound : kExitNotExecutable);
  }
  relay->started(child);
  return child;
}

// The live status line: redrawn a few times a second, the profile read again when it grew, at
// most every two seconds.
class LiveStatus {
 public:
  LiveStatus(bool quiet, const OutputWatch& watch, const std::string& output)
      : line_(quiet ? -1 : STDERR_FILENO), watch_(watch), output_(output) {}

  bool active() const { return line_.active(); }
  void update(SignalRelay* relay, double elapsed_s, size_t run, size_t runs) {
    if (relay->take_resized()) {
      line_.resized();
    }
    off_t size = watch_.size();
    if (size != read_size_ && elapsed_s - read_at_ >= 2 && !watch_.lost()) {
      progress_ = read_progress(output_);
      read_size_ = size;
      read_at_ = elapsed_s;
    }
    line_.show(status_text(progress_, elapsed_s, run, runs));
  }
  // After a run, the reading `coz run` made anyway.
  void set(const RunProgress& progress, off_t size) {
    progress_ = progress;
    read_size_ = size;
  }
  void close() { line_.close(); }

 private:
  StatusLine line_;
  const OutputWatch& watch_;
  const std::string& output_;
  RunProgress progress_;
  off_t read_size_ = -1;
  double read_at_ = -1e9;  // the first look reads the profile at once
};

}  // namespace

int run_command(const std::vector<std::string>& args) {
  Session s;
  if (int status = prepare(args, &s); status >= 0) {
    return status;
  }
  const RunPlan& plan = s.plan;
  // Ctrl-C and friends reach the whole process group; let the program decide what to do and
  // report its fate. Requests sent to coz alone are passed on (signal_relay.h). Before the status
  // line, so that it is closed while coz's writes cannot stop it.
  SignalRelay relay(!s.options.quiet);
  OutputWatch watch(s.output);
  LiveStatus live(s.options.quiet, watch, s.output);
  std::string profile = s.output;  // where the profile is read back: a saved copy once lost
  const off_t first_size = watch.size();
  const size_t old_records = first_size > 0 ? count_records(s.output) : 0;
  const uint64_t started_ns = platform::monotonic_ns();
  auto elapsed_s = [&] { return static_cast<double>(platform::monotonic_ns() - started_ns) / 1e9; };
  const bool each_run_said = plan.total() > 1 || plan.repeat;
  ProfileReading reading;  // after the last run
  int status = 0;
  int failed_status = 0;  // the last failed run's, which --keep-going reports at the end
  for (size_t done = 1;; done++) {
    double load = s.options.loads.empty() ? 0 : s.options.loads[plan.level_of(done)];
    if (plan.total() > 1 || (plan.repeat && done > 1)) {
      std::string of = plan.total() ? " of " + std::to_string(plan.total()) : "";
      std::string left =
          plan.repeat ? ", " + format_seconds(static_cast<int>(plan.budget_s - elapsed_s() + 0.5)) +
                            " of the budget left"
                      : "";
      fprintf(stderr, "coz: run %zu%s%s%s\n", done, of.c_str(),
              load > 0 ? (" at load " + format_load(load)).c_str() : "", left.c_str());
    }
    off_t size_before = watch.size();
    std::string error;
    pid_t child = start_program(s, load, &relay, &error);
    if (child < 0) {
      return fail(kWho, error, kExitCannotProfile);
    }
    for (;;) {
      // Without a status line coz just waits; with one it looks in a few times a second.
      pid_t got = waitpid(child, &status, live.active() ? WNOHANG : 0);
      if (got == child) {
        break;
      }
      if (got < 0 && errno != EINTR) {
        return fail(kWho, std::string("lost track of the program: ") + strerror(errno),
                    kExitCannotProfile);
      }
      if (got == 0) {
        live.update(&relay, elapsed_s(), done, plan.total());
        timespec tick = {0, 250000000};
        nanosleep(&tick, nullptr);
      }
    }
    relay.finished();
    remove_run_files_of(child);

    RunOutcome outcome;
    outcome.done = done;
    outcome.output_lost = watch.lost();
    if (outcome.output_lost) {
      profile = report_lost_output(watch, s.output, done, watch.size() > size_before);
    } else if (watch.size() <= size_before) {
      fprintf(stderr,
              "coz: no profile was written to %s: the profiler did not start in the program "
              "(any reason is above; a program that gains privileges ignores it)\n",
              s.output.c_str());
    }
    outcome.failed = WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (outcome.failed) {
      failed_status = status;
      outcome.failure = describe_status(status);
    }
    // The one reading of the profile after this run: the line on where it stands, what
    // --until-confident stops on, and the closing summary.
    reading = {};
    if (!profile.empty() && (each_run_said || !s.options.quiet)) {
      reading = read_after_run(profile, old_records, static_cast<uint64_t>(getpid()));
      live.set(reading.progress, watch.size());
    }
    if (each_run_said && !s.options.quiet) {
      const RunProgress& p = reading.progress;
      fprintf(stderr, "coz: after run %zu: %zu experiments, %zu of %zu lines with enough data%s\n",
              done, p.experiments, p.lines_shown, p.lines_tested,
              p.top.empty() ? "" : ("; top " + p.top).c_str());
    }
    outcome.interrupted = relay.stop_requested();
    outcome.elapsed_s = elapsed_s();
    outcome.separated = reading.progress.separated;
    outcome.hopeless = reading.progress.hopeless;
    NextStep step = next_step(plan, outcome);
    if (!step.message.empty()) {
      tell("coz", step.message);
    }
    if (!step.again) {
      break;
    }
  }
  live.close();
  if (!profile.empty() && watch.size() > first_size && !s.options.quiet) {
    const std::string& coordinator = s.options.config.coordinator;
    std::string summary =
        !coordinator.empty()
            ? "coz: this program's own records are in " + profile +
                  "; the run's profile, with every member's, is the one coz coordinate at " +
                  coordinator + " writes\n"
        : reading.readable
            ? exit_summary(profile, reading.report, reading.this_run)
            : "coz: the profile " + profile + " could not be read back: " + reading.error + "\n";
    fputs(output::terminal_safe_lines(summary).c_str(), stderr);
  }
  if (failed_status != 0) {
    status = failed_status;  // one failed run fails the whole command, as with make -k
  }
  if (WIFSIGNALED(status)) {
    s.preload.remove();  // no destructor runs after this
    die_like(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace coz::cli
