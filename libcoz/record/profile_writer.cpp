// Appending whole blocks to a profile (see profile_writer.h).
#include "record/profile_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "base/own_fds.h"
#include "base/platform.h"

namespace coz {
namespace {

// O_NONBLOCK: opening a FIFO nobody reads fails (ENXIO) instead of waiting forever; it changes
// nothing for files.
int open_append(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
}

}  // namespace

ProfileWriter::~ProfileWriter() {
  close();
}

bool ProfileWriter::open(const std::string& path, std::string* error) {
  close();
  int fd = open_append(path);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (error) {
      *error = "cannot write the profile to " + path + ": " +
               (errno == ENXIO ? std::string("it is a FIFO, not a file") : strerror(errno));
    }
    if (fd >= 0) {
      ::close(fd);
    }
    return false;
  }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode)) {
    if (error) {
      *error = "cannot write the profile to " + path + ": it is a " +
               (S_ISDIR(st.st_mode)    ? "directory"
                : S_ISFIFO(st.st_mode) ? "FIFO"
                                       : "socket") +
               ", not a file";
    }
    ::close(fd);
    return false;
  }
  path_ = platform::absolute_path(path);
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  if (own_fds::descriptors_scarce()) {
    ::close(fd);
    per_block_ = true;
    return true;
  }
  fd_.store(own_fds::move_high(fd));
  own_fds::adopt(&fd_);
  return true;
}

bool ProfileWriter::append_by_path(std::string* error) {
  // Under the descriptor table's lock: the program's close and dup2 of the number it takes wait
  // (it is not registered, being closed before they could see it).
  own_fds::Lock lock;
  int fd = open_append(path_);
  if (fd < 0) {
    *error = "cannot re-open " + path_ + ": " + strerror(errno);
    return false;
  }
  bool written = append_whole(fd, pending_, error);
  ::close(fd);
  return written;
}

bool ProfileWriter::check_identity(std::string* error) {
  struct stat st;
  int fd = fd_.load();
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) {
    return true;
  }
  // The number no longer names our file: it was closed behind the hooks' back (and may now be
  // the program's). Never write there; open the path again.
  own_fds::forget(&fd_);
  fd = open_append(path_);
  if (fd < 0 || fstat(fd, &st) != 0) {
    *error = "cannot re-open " + path_ + ": " + strerror(errno);
    if (fd >= 0) {
      ::close(fd);
    }
    return false;
  }
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  fd_.store(own_fds::move_high(fd));
  own_fds::adopt(&fd_);
  return true;
}

bool ProfileWriter::append_whole(int fd, const std::string& text, std::string* error) {
  // Past the file size limit (ulimit -f) a write would also raise SIGXFSZ, whose default action
  // kills the program: never let the profile be the file that does that.
  rlimit limit;
  struct stat st;
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      fstat(fd, &st) == 0 && static_cast<rlim_t>(st.st_size) + text.size() > limit.rlim_cur) {
    *error = "the file size limit (ulimit -f) is reached";
    return false;
  }
  const char* p = text.data();
  size_t left = text.size();
  off_t start = -1;  // where this text began, once part of it is in the file
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      *error = std::string(strerror(err));
      if (start >= 0) {
        // Take the partial block back, unless another process appended after it meanwhile.
        struct stat st;
        off_t end = lseek(fd, 0, SEEK_CUR);
        if (fstat(fd, &st) == 0 && st.st_size == end) {
          if (ftruncate(fd, start) != 0) {
            *error += "; a partial record could not be removed";
          }
        }
      }
      return false;
    }
    if (start < 0) {
      start = lseek(fd, 0, SEEK_CUR) - n;  // O_APPEND leaves the offset at the end of our data
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

bool ProfileWriter::write_block(const RecordBuilder& block, uint64_t experiments,
                                std::string* error) {
  return write_block(std::string_view(block.text()), experiments, error);
}

bool ProfileWriter::write_block(std::string_view block, uint64_t experiments, std::string* error) {
  std::string ignored;
  std::string& why = error ? *error : ignored;
  std::string text(block);
  if (!text.empty() && text.back() != '\n') {
    text.push_back('\n');
  }
  bool dropped = !pending_.empty() && pending_.size() + text.size() > kMaxPendingBytes;
  if (dropped) {
    dropped_experiments_ += experiments;  // the older blocks keep their place
  } else {
    pending_ += text;
    pending_experiments_ += experiments;
  }
  if (fd_.load() < 0 && !per_block_) {
    why = "the profile is not open";
    return false;
  }
  if (pending_.empty()) {
    return true;
  }
  if (per_block_) {
    if (!append_by_path(&why)) {
      return false;
    }
    return written_all(dropped, &why);
  }
  // Write through a private copy, taken while the program cannot move the descriptor: a slow
  // disk then never holds up the program's close or dup2 hooks.
  // With no descriptor to spare (the program used them all), write under the lock instead.
  int copy = -1;
  bool written = false;
  {
    own_fds::Lock lock;
    if (!check_identity(&why)) {
      return false;
    }
    copy = own_fds::copy_high(fd_.load());  // high, so the program's next open is unchanged
    if (copy < 0) {
      written = append_whole(fd_.load(), pending_, &why);
    }
  }
  if (copy >= 0) {
    written = append_whole(copy, pending_, &why);
    ::close(copy);  // not registered: the close hook passes it through
  }
  if (!written) {
    return false;
  }
  return written_all(dropped, &why);
}

bool ProfileWriter::written_all(bool dropped, std::string* error) {
  pending_.clear();
  pending_experiments_ = 0;
  if (dropped) {
    *error = "a block was dropped while the file could not be written";
    return false;
  }
  return true;
}

void ProfileWriter::close() {
  if (fd_.load() < 0 && !per_block_) {
    return;
  }
  if (!pending_.empty()) {
    RecordBuilder nothing;
    write_block(nothing);
  }
  per_block_ = false;
  own_fds::release(&fd_);
}

}  // namespace coz
