// Noticing a profile removed during `coz run`, and saving what went into it (see output_watch.h).
#include "commands/output_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace coz::cli {
namespace {

// Copies all of `from` into a new file `to` (never an existing one). False with errno set.
bool copy_into_new(int from, const std::string& to) {
  int out = open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    return false;
  }
  std::vector<char> buf(1 << 16);
  off_t at = 0;
  for (;;) {
    ssize_t n = pread(from, buf.data(), buf.size(), at);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      int err = n < 0 ? errno : 0;
      if (close(out) != 0 && err == 0) {
        err = errno;
      }
      if (err != 0) {
        unlink(to.c_str());
        errno = err;
        return false;
      }
      return true;
    }
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(out, buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) {
        continue;
      }
      if (w <= 0) {
        int err = w < 0 ? errno : ENOSPC;
        close(out);
        unlink(to.c_str());
        errno = err;
        return false;
      }
      done += w;
    }
    at += n;
  }
}

// "p.coz" -> "p.recovered.coz", "p" -> "p.recovered"; a number after the first.
std::string recovery_name(const std::string& base, int attempt) {
  std::string tag = ".recovered" + (attempt > 0 ? "-" + std::to_string(attempt + 1) : "");
  size_t dot = base.rfind('.');
  if (dot == std::string::npos || dot == 0) {
    return base + tag;
  }
  return base.substr(0, dot) + tag + base.substr(dot);
}

}  // namespace

OutputWatch::OutputWatch(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd_ >= 0 && fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    dev_ = st.st_dev;
    ino_ = st.st_ino;
  } else if (fd_ >= 0) {
    close(fd_);  // a device (/dev/full): nothing to watch
    fd_ = -1;
  }
}

OutputWatch::~OutputWatch() {
  if (fd_ >= 0) {
    close(fd_);
  }
}

off_t OutputWatch::size() const {
  struct stat st;
  if (fd_ >= 0) {
    return fstat(fd_, &st) == 0 ? st.st_size : -1;
  }
  return stat(path_.c_str(), &st) == 0 ? st.st_size : -1;
}

bool OutputWatch::lost() const {
  struct stat st;
  if (fd_ < 0) {
    return false;
  }
  return stat(path_.c_str(), &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_;
}

bool OutputWatch::removed() const {
  struct stat st;
  return fd_ >= 0 && fstat(fd_, &st) == 0 && st.st_nlink == 0;
}

std::string OutputWatch::save_copy(std::string* error) const {
  size_t slash = path_.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash);
  std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  std::vector<std::string> dirs = {dir};
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) {
    dirs.push_back(cwd);
  }
  if (const char* tmp = getenv("TMPDIR"); tmp && tmp[0] == '/') {
    dirs.push_back(tmp);
  }
  dirs.push_back("/tmp");
  std::string tried;
  for (const std::string& d : dirs) {
    for (int attempt = 0; attempt < 100; attempt++) {
      std::string to = (d == "/" ? "" : d) + "/" + recovery_name(base, attempt);
      if (copy_into_new(fd_, to)) {
        return to;
      }
      if (errno != EEXIST) {
        tried += (tried.empty() ? "" : ", ") + d + " (" + strerror(errno) + ")";
        break;
      }
    }
  }
  *error = "no copy could be made in " + tried;
  return "";
}

}  // namespace coz::cli
