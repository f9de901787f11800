// Independent tasks on every core: the analysis's one use of threads. Each task writes only its
// own results and draws from its own place in a seeded stream, so the results do not depend on
// which thread runs which task or in what order (and equal those of a plain loop).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <utility>
#include <vector>
#ifndef __wasi__
#include <thread>
#endif

namespace coz::analysis {

// Calls task(k) once for each k in [0, n), on up to one thread per core; returns when all are done.
template <class Task>
void parallel_for(size_t n, const Task& task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next++) < n;) {
      task(k);
    }
  };
#ifdef __wasi__
  work();  // the page's reader has one thread
#else
  size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), n);
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; t++) {
    helpers.emplace_back(work);
  }
  work();
  for (std::thread& t : helpers) {
    t.join();
  }
#endif
}

// One task run beside the caller's work, joined when this goes out of scope (at once, in the
// caller's thread, where there are no threads).
class Beside {
 public:
  template <class Task>
  explicit Beside(Task task) {
#ifdef __wasi__
    task();
#else
    thread_ = std::thread(std::move(task));
#endif
  }
  ~Beside() {
    join();
  }
  void join() {
#ifndef __wasi__
    if (thread_.joinable()) {
      thread_.join();
    }
#endif
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;

 private:
#ifndef __wasi__
  std::thread thread_;
#endif
};

}  // namespace coz::analysis
