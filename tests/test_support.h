// Helpers shared by the tests: fixture paths, source markers, symbol addresses, and running a
// command with its stdin, stdout, stderr and exit status captured.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace coz::test {

// The whole content of the file at `path` ("" if it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string fixture(const std::string& name) {
  return std::string(COZ_TEST_FIXTURES) + "/" + name;
}
inline std::string program_source(const std::string& name) {
  return std::string(COZ_TEST_PROGRAMS_SRC) + "/" + name;
}

// The line number of the line in `source` that contains "LINE:<marker> ", or 0.
inline int marker_line(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string line;
  for (int n = 1; std::getline(in, line); n++) {
    if (line.find("LINE:" + marker + " ") != std::string::npos) {
      return n;
    }
  }
  return 0;
}

// The link-time address of `symbol` in the ELF file `path` (from nm), or 0.
inline uintptr_t symbol_address(const std::string& path, const std::string& symbol) {
  std::string cmd = "nm --defined-only '" + path + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    return 0;
  }
  char buf[1024];
  uintptr_t found = 0;
  while (fgets(buf, sizeof buf, p)) {
    char name[512];
    unsigned long addr;
    char type;
    if (sscanf(buf, "%lx %c %511s", &addr, &type, name) == 3 && symbol == name) {
      found = addr;
    }
  }
  pclose(p);
  return found;
}

// In a forked child: runs `argv` (looked up on PATH when `search`), or exits 127.
[[noreturn]] inline void exec_or_exit(const std::vector<std::string>& argv, bool search = false) {
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  if (search) {
    execvp(args[0], args.data());
  } else {
    execv(args[0], args.data());
  }
  _exit(127);
}

struct ProcessResult {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

// Runs argv with `input` on stdin and `env` added to the environment; waits for it.
inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const std::string& input = "",
                                 const std::vector<std::pair<std::string, std::string>>& env = {}) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) || pipe(out_pipe) || pipe(err_pipe)) {
    return {};
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      close(fd);
    }
    for (const auto& [k, v] : env) {
      setenv(k.c_str(), v.c_str(), 1);
    }
    exec_or_exit(argv, true);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  signal(SIGPIPE, SIG_IGN);
  if (!input.empty()) {
    ssize_t ignored = write(in_pipe[1], input.data(), input.size());
    (void)ignored;
  }
  close(in_pipe[1]);
  ProcessResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      break;
    }
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP))) {
        char buf[4096];
        ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n <= 0) {
          close(fds[i].fd);
          fds[i].fd = -1;
          open_fds--;
        } else {
          (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
        }
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// A fresh temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/coz-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::string cmd = "rm -rf '" + path_ + "'";
    int ignored = system(cmd.c_str());
    (void)ignored;
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace coz::test
