// A word on stderr while an analysis that has taken over two seconds runs: "coz report:
// analysing 100000 experiments: 40%", updated in place on a terminal and cleared when done;
// said once (without the percentage) when stderr is not a terminal, so logs get one line.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "analysis/causal_profile.h"

namespace coz::cli {

class ProgressNotice {
 public:
  ProgressNotice(std::string who, const analysis::AnalysisProgress* progress);
  ~ProgressNotice();  // stops and clears the line
  ProgressNotice(const ProgressNotice&) = delete;
  ProgressNotice& operator=(const ProgressNotice&) = delete;

  static constexpr int kQuietMs = 2000;  // shown only after this long

 private:
  void watch();

  std::string who_;
  const analysis::AnalysisProgress* progress_;
  std::mutex mutex_;
  std::condition_variable finished_cv_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace coz::cli
