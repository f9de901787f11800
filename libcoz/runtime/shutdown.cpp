// Shut-down: drain every thread's samples, write the final records, and stop the profiler
// thread. Three ways in (the library destructor, _exit, a fatal signal); the first finishes the
// work and later callers wait for it.
// Threads: shutdown() from any thread; shutdown_from_signal() from a signal handler
// (async-signal-safe); finish_shutdown() once the profiler thread has stopped.
#include <cinttypes>
#include <cstdio>

#include "own_fds.h"
#include "platform.h"
#include "real_functions.h"
#include "runtime/hooks_api.h"
#include "runtime/runtime.h"
#include "runtime/runtime_internal.h"
#include "runtime/sample_signal.h"
#include "sample/breakpoint_counter.h"

namespace coz {

using namespace internal;

void Runtime::drain_all_threads() {
  threads_.for_each_live([this](ThreadState& s) {
    s.sampler->disable();
    if (s.try_begin_drain()) {
      SampleContext context{this, 0};
      s.samples += s.sampler->drain(count_sample, &context);
      // Count the samples still in the ring in the experiment's delays (raising the global count
      // only: nobody pauses at exit).
      if (experiment_.ledger.active()) {
        s.pending_selected += context.selected;
        delay_inserted(experiment_.ledger.absorb(
            s.delays, s.pending_selected * experiment_.ledger.delay_ns()));
        s.pending_selected = 0;
      }
      s.end_drain();
    }
  });
}

void Runtime::write_final_records() {
  RecordBuilder block;
  block.begin(vocab::kRuntime).field(vocab::key::kTime, platform::monotonic_ns() - start_ns_);
  lines_.for_each([&block](const SourceLine& line) {
    uint64_t n = line.samples.load(std::memory_order_relaxed);
    if (n > 0) {
      block.begin(vocab::kSamples)
          .field(vocab::key::kLocation, line.name())
          .field(vocab::key::kCount, n);
    }
  });
  if (amplify_.requested() && !points_.any_arrivals()) {
    block.begin(vocab::kWarning).field(vocab::key::kMessage, kNoArrivalWarning);
  }
  std::string why;
  if (!writer_.write_block(block, 0, &why)) {
    report("error: could not append the final records to " + config_.output + " (" + why + ")",
           true);
  }
}

void Runtime::note_write(bool ok, const std::string& why) {
  if (!ok && !write_failing_) {
    report("error: could not append an experiment to " + config_.output + " (" + why +
               "); it is kept and tried again with the next one",
           true);
  } else if (ok && write_failing_) {
    report("the profile is written again: the experiments that waited are now in " + config_.output,
           true);
  }
  write_failing_ = !ok;
}

void Runtime::shutdown() {
  static thread_local bool in_shutdown = false;
  if (shut_down_.exchange(true)) {
    // Another exit path got here first: let it finish writing (unless that is this thread).
    if (!in_shutdown) {
      wait_for_shutdown(2000);
    }
    return;
  }
  in_shutdown = true;
  SampleSignalBlock block;
  if (profiler_running_) {
    runner_->stop();
    real().pthread_join(profiler_thread_, nullptr);
  }
  finish_shutdown();
}

void Runtime::shutdown_from_signal() {
  if (!profiler_running_ || shut_down_.exchange(true)) {
    // No profiler thread to write for us, or another exit path is writing: wait for it briefly.
    if (profiler_running_) {
      wait_for_shutdown(2000);
    }
    return;
  }
  // Only async-signal-safe steps here: an atomic flag the profiler thread checks at least every
  // 10 ms, and sleeps. If the profiler thread cannot finish (it needs a lock this thread holds),
  // the program dies of its signal after 3 s with the experiments already written.
  signal_shutdown_.store(true, std::memory_order_release);
  runner_->stop_async();
  wait_for_shutdown(3000);
}

void Runtime::wait_for_shutdown(int ms) const {
  for (int i = 0; i < ms && !shutdown_done_.load(); i++) {
    timespec one = {0, 1000000};
    real().nanosleep(&one, nullptr);
  }
}

void Runtime::finish_shutdown() {
  active_.store(nullptr, std::memory_order_release);
  drain_all_threads();  // so an end-to-end experiment counts every selected-line sample
  runner_->finish();
  write_final_records();
  writer_.close();
  if (uint64_t unwritten = writer_.unwritten_experiments()) {
    report("error: " + std::to_string(unwritten) + " of " + std::to_string(runner_->experiments()) +
               " experiments could not be written to " + config_.output +
               "; free space there (or choose another file with -o) and run again",
           true);
  }

  uint64_t total = total_samples_.load();
  uint64_t in_scope = in_scope_samples_.load();
  char line[256];
  snprintf(line, sizeof line,
           "%" PRIu64 " samples (%" PRIu64 " in scope) from %" PRIu64 " threads in %s; %" PRIu64
           " experiments, %s of delays; profile: %s",
           total, in_scope, threads_.total_attached(),
           format_ms(platform::monotonic_ns() - start_ns_).c_str(), runner_->experiments(),
           format_ms(delays_.paused_ns()).c_str(), config_.output.c_str());
  report(line, false);
  if (uint64_t missed = unsampled_threads_.load()) {
    std::lock_guard<std::mutex> lock(unsampled_mutex_);
    report("warning: " + std::to_string(missed) + " of " +
               std::to_string(missed + threads_.total_attached()) +
               " threads were not sampled, so the profile misses their work: " + unsampled_reason_,
           true);
  }
  uint64_t visits = 0;
  points_.for_each([&visits](const ProgressPoint& p) {
    visits += p.read(p.throughput) + p.read(p.begin) + p.read(p.end);
  });
  if (amplify_.requested() && !points_.any_arrivals()) {
    report(std::string("warning: ") + kNoArrivalWarning, true);
  }
  if (visits == 0) {
    report(
        "warning: no progress point was visited, so no speedup can be measured; add "
        "COZ_PROGRESS (include/coz.h) where a unit of work completes",
        true);
  }
  points_.for_each([this](const ProgressPoint& p) {
    if (p.is_latency) {
      report("latency point " + p.name + ": " + std::to_string(p.read(p.begin)) + " begins, " +
                 std::to_string(p.read(p.end)) + " ends",
             false);
    } else {
      report("progress point " + p.name + ": " + std::to_string(p.read(p.throughput)) + " visits",
             false);
    }
  });
  shutdown_done_.store(true);
}

}  // namespace coz
