// A word on stderr while a long analysis runs (see progress_notice.h).
#include "common/progress_notice.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace coz::cli {

ProgressNotice::ProgressNotice(std::string who, const analysis::AnalysisProgress* progress)
    : who_(std::move(who)), progress_(progress), thread_([this] { watch(); }) {}

ProgressNotice::~ProgressNotice() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  finished_cv_.notify_all();
  thread_.join();
}

void ProgressNotice::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (finished_cv_.wait_for(lock, std::chrono::milliseconds(kQuietMs),
                            [this] { return finished_; })) {
    return;
  }
  const bool terminal = isatty(STDERR_FILENO) != 0;
  const size_t total = progress_->total;
  if (!terminal) {
    fprintf(stderr, "%s: analysing %zu experiments...\n", who_.c_str(), total);
    return;
  }
  do {
    size_t done = progress_->done;
    int percent = total > 0 ? static_cast<int>(99.0 * static_cast<double>(done) / total) : 0;
    fprintf(stderr, "\r%s: analysing %zu experiments: %d%%\033[K", who_.c_str(), total, percent);
    fflush(stderr);
  } while (
      !finished_cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return finished_; }));
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}

}  // namespace coz::cli
