// Appends blocks of records (profile_format.h) to a profile file, each whole or not at all.
//
// - Each block (an experiment with its points, the final samples) goes out in one write(2) on an
//   O_APPEND descriptor, so blocks from several processes appending to one file never interleave.
// - A short write (a full disk) is taken back: the file is cut to its length before the block.
//   The block is kept and tried again ahead of the next one (up to kMaxPendingBytes), so space
//   freed later still saves it; what cannot be kept is counted.
// - The descriptor is the profiler's (own_fds.h): the program cannot close or replace it. If it
//   still does (a raw close_range syscall), the file's identity, checked before each block,
//   no longer matches: the writer re-opens its path and never writes into the program's file.
//
// - Where descriptors are scarce (own_fds::descriptors_scarce: a low `ulimit -n` with no room
//   above it), no descriptor is held between blocks: the path is opened for each block and
//   closed after it, so the program keeps every number its limit allows.
//
// Concurrency: used by one thread at a time (the profiler thread, or the exiting thread after
// the profiler thread has stopped).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "record/profile_format.h"

namespace coz {

class ProfileWriter {
 public:
  static constexpr size_t kMaxPendingBytes = 4 << 20;

  ProfileWriter() = default;
  ~ProfileWriter();
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // Opens `path` for appending, creating it. On failure returns false and sets `error` to a
  // sentence that names the path and the reason.
  bool open(const std::string& path, std::string* error);
  // The profile's absolute path, once open.
  const std::string& path() const { return path_; }

  // Writes the blocks still waiting, then this one, holding `experiments` experiments. True when
  // everything is in the file; otherwise false with `error` set to why (this block then waits
  // for the next call, or is dropped if too much is waiting).
  bool write_block(const RecordBuilder& block, uint64_t experiments = 0,
                   std::string* error = nullptr);
  // The same for a block of records already in text (whole lines: `coz coordinate` passes its
  // members' on).
  bool write_block(std::string_view block, uint64_t experiments = 0, std::string* error = nullptr);

  // Experiments not in the file: waiting to be retried, or dropped.
  uint64_t unwritten_experiments() const { return pending_experiments_ + dropped_experiments_; }
  // Tries the waiting blocks once more and closes the file.
  void close();
  // Whether the file is opened for each block instead of held open.
  bool opened_per_block() const { return per_block_; }

 private:
  // Checks the descriptor still names the file opened (re-opening the path if not). False with
  // `error` set when the file cannot be written at all.
  bool check_identity(std::string* error);
  // Opens the path, appends the waiting blocks and closes it (per_block_). False with `error`.
  bool append_by_path(std::string* error);
  // The waiting blocks are in the file: clears them; false with `error` if one was dropped.
  bool written_all(bool dropped, std::string* error);
  // Appends `text` to `fd` in one write, or leaves the file as it was. False with `error` set.
  static bool append_whole(int fd, const std::string& text, std::string* error);

  std::atomic<int> fd_{-1};
  bool per_block_ = false;  // open: the path is opened for each block (fd_ stays -1)
  std::string path_;        // absolute, for re-opening after the program changed directory
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  std::string pending_;  // whole blocks not yet written, oldest first
  uint64_t pending_experiments_ = 0;
  uint64_t dropped_experiments_ = 0;
};

}  // namespace coz
