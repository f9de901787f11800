// Reading profiles, from files or from memory (see profile_format.h): a profile is untrusted, so
// only regular files are read, and file size, line length, record count and the errors kept are all
// bounded.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "base/unique_fd.h"
#include "record/profile_format.h"

namespace coz {
namespace {

constexpr size_t kChunk = 64 << 10;
constexpr size_t kMaxMessage = 200;  // bytes of one error message kept

std::string mib(uint64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// Cuts bytes into lines and lines into records, within the bounds of profile_format.h: the one
// loop behind reading a file in chunks and reading text already in memory.
class RecordSplitter {
 public:
  RecordSplitter(const std::string& path, const std::function<void(Record&&)>& on_record,
                 const std::function<void(ParseError&&)>& on_error)
      : path_(path), on_record_(on_record), on_error_(on_error) {}

  // Feeds the next bytes. Returns false, with `error` set, once the file holds more records than
  // a profile may.
  bool feed(const char* p, const char* end, std::string* error) {
    while (p < end) {
      const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
      const char* stop = nl ? nl : end;
      if (!too_long_) {
        line_.append(p, static_cast<size_t>(stop - p));
        if (line_.size() > kMaxRecordBytes) {
          too_long_ = true;
          std::string().swap(line_);
        }
      }
      p = stop;
      if (nl) {
        finish(true);
        if (over_) {
          if (error) {
            *error = path_ + " holds more than " + std::to_string(kMaxProfileRecords) +
                     " records, more than a profile may; split it into whole lines (split -l "
                     "2000000 " +
                     path_ + " part-) and give the parts";
          }
          return false;
        }
        line_.clear();
        too_long_ = false;
        p++;
      }
    }
    return true;
  }

  // The end of the input: the last line of a file cut short has no newline.
  void end() {
    if (!line_.empty() || too_long_) {
      finish(false);
    }
  }

 private:
  void finish(bool complete) {
    number_++;
    if (too_long_) {
      on_error_(
          {path_, number_, "record too long (more than " + mib(kMaxRecordBytes) + "); skipped"});
      return;
    }
    Record r;
    std::string message;
    if (!parse_record(line_, &r, &message)) {
      if (message.size() > kMaxMessage) {
        message.resize(kMaxMessage);
        message += "...";
      }
      on_error_({path_, number_, std::move(message)});
      return;
    }
    if (r.type.empty()) {
      return;
    }
    if (!complete) {
      on_error_({path_, number_, "truncated record (no end of line)"});
      return;
    }
    if (++records_ > kMaxProfileRecords) {
      over_ = true;
      return;
    }
    r.line = number_;
    on_record_(std::move(r));
  }

  const std::string& path_;
  const std::function<void(Record&&)>& on_record_;
  const std::function<void(ParseError&&)>& on_error_;
  std::string line_;       // the line being assembled
  bool too_long_ = false;  // the current line passed kMaxRecordBytes: its text is dropped
  size_t number_ = 0;
  size_t records_ = 0;
  bool over_ = false;
};

std::string too_large(const std::string& path, uint64_t bytes) {
  return path + " is " + mib(bytes) + ", more than the " + mib(kMaxProfileBytes) +
         " a profile may hold; split it into whole lines (split -C 200M " + path +
         " part-) and give the parts";
}

}  // namespace

bool read_profile_records(const std::string& path, const std::function<void(Record&&)>& on_record,
                          const std::function<void(ParseError&&)>& on_error, std::string* error,
                          uint64_t offset) {
  auto fail = [&](std::string message) {
    if (error) {
      *error = std::move(message);
    }
    return false;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat says what it is.
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    return fail("cannot read " + path + ": " + strerror(errno));
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    return fail("cannot read " + path + ": " + strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return fail(path + " is a directory, not a profile");
  }
  if (!S_ISREG(st.st_mode)) {
    return fail(path +
                " is not a regular file (a device, FIFO or socket); give a profile file that coz "
                "run wrote");
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  uint64_t left = size > offset ? size - offset : 0;
  if (left > kMaxProfileBytes) {
    return fail(too_large(path, left));
  }
  if (offset > 0 && lseek(fd.get(), static_cast<off_t>(offset), SEEK_SET) < 0) {
    return fail("cannot read " + path + ": " + strerror(errno));
  }

  RecordSplitter splitter(path, on_record, on_error);
  char buf[kChunk];
  uint64_t read_total = 0;
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return fail("cannot read " + path + ": " + strerror(errno));
    }
    if (n == 0) {
      break;
    }
    // A file that grows while it is read (a profile being written) is read up to the bound.
    size_t usable = static_cast<size_t>(
        std::min<uint64_t>(static_cast<uint64_t>(n), kMaxProfileBytes - read_total));
    read_total += usable;
    if (!splitter.feed(buf, buf + usable, error)) {
      return false;
    }
    if (read_total >= kMaxProfileBytes) {
      break;
    }
  }
  splitter.end();
  return true;
}

bool read_profile_text(const std::string& name, std::string_view text,
                       const std::function<void(Record&&)>& on_record,
                       const std::function<void(ParseError&&)>& on_error, std::string* error) {
  if (text.size() > kMaxProfileBytes) {
    if (error) {
      *error = too_large(name, text.size());
    }
    return false;
  }
  RecordSplitter splitter(name, on_record, on_error);
  if (!splitter.feed(text.data(), text.data() + text.size(), error)) {
    return false;
  }
  splitter.end();
  return true;
}

bool read_profile(const std::string& path, std::vector<Record>* records,
                  std::vector<ParseError>* errors, std::string* error, uint64_t offset) {
  size_t unlisted = 0;
  size_t last_line = 0;
  bool ok = read_profile_records(
      path, [&](Record&& r) { records->push_back(std::move(r)); },
      [&](ParseError&& e) {
        last_line = e.line;
        if (errors->size() < kMaxListedErrors) {
          errors->push_back(std::move(e));
        } else {
          unlisted++;
        }
      },
      error, offset);
  if (unlisted > 0) {
    errors->push_back(
        {path, last_line, std::to_string(unlisted) + " more bad lines up to here, not listed"});
  }
  return ok;
}

}  // namespace coz
