// `coz run` holds its profile open from the start, so that a profile whose path is removed or
// replaced while the program runs (its directory deleted, say) is noticed, and what the runtime
// went on writing into the file it had opened is saved under a name that coz gives.
#pragma once

#include <sys/types.h>

#include <string>

namespace coz::cli {

class OutputWatch {
 public:
  // Opens `path` (already created by the preflight check) for reading. Without it (a file that
  // cannot be read), sizes come from the path and nothing can be saved.
  explicit OutputWatch(const std::string& path);
  ~OutputWatch();
  OutputWatch(const OutputWatch&) = delete;
  OutputWatch& operator=(const OutputWatch&) = delete;

  // The size of the file held (of the path, without one); -1 when unknown.
  off_t size() const;
  // True when the path no longer names the file held: removed, or replaced by another.
  bool lost() const;
  // True when the file held has no name left (removed, not moved).
  bool removed() const;
  // Copies the file held to a new file: beside the path, in the current directory, in $TMPDIR
  // or in /tmp, the first that works. Its path, or empty with `error` set.
  std::string save_copy(std::string* error) const;

 private:
  std::string path_;
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

}  // namespace coz::cli
