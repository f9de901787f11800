// A member's runner (profiler/coordinated_experiments.cpp) driven by a scripted link instead of a
// coordinator: it begins and ends experiments when told, sends its delay total when it rose, takes
// the others' totals, and, end to end, writes its record as it exits and says so after
// forwarding it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "profiler/experiment_runner.h"
#include "record/profile_format.h"
#include "remote/link.h"
#include "unit/runner_parts.h"

namespace coz {
namespace {

using remote::LinkEvent;

// What the coordinator would send, queued by the test; what the member sent, kept in order.
class ScriptedLink : public remote::Link {
 public:
  void poll(int wait_ms, std::vector<LinkEvent>* events) override {
    {
      std::lock_guard<std::mutex> hold(mutex_);
      for (LinkEvent& e : queued_) {
        events->push_back(std::move(e));
      }
      queued_.clear();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms < 1 ? 0 : 1));
  }
  void offer(const std::string& line) override { said("offer " + line); }
  void raise(uint64_t experiment, uint64_t ns, uint64_t) override {
    said("raise " + std::to_string(experiment) + " " + std::to_string(ns));
  }
  void ended(uint64_t experiment) override { said("ended " + std::to_string(experiment)); }
  void forward_profile() override { said("forward"); }
  const std::string& why_lost() const override { return why_; }

  void send(LinkEvent e) {
    std::lock_guard<std::mutex> hold(mutex_);
    queued_.push_back(std::move(e));
  }
  std::vector<std::string> sent() {
    std::lock_guard<std::mutex> hold(mutex_);
    return sent_;
  }
  bool has_sent(const std::string& what) {
    std::vector<std::string> all = sent();
    return std::find(all.begin(), all.end(), what) != all.end();
  }

 private:
  void said(const std::string& what) {
    std::lock_guard<std::mutex> hold(mutex_);
    sent_.push_back(what);
  }
  std::mutex mutex_;
  std::vector<LinkEvent> queued_;
  std::vector<std::string> sent_;
  std::string why_;
};

using test::eventually;

// What the coordinator sends: `kind` of `experiment`, with `ns` (a raise's total).
LinkEvent event(LinkEvent::Kind kind, uint64_t experiment, uint64_t ns = 0) {
  LinkEvent e;
  e.kind = kind;
  e.experiment = experiment;
  e.ns = ns;
  return e;
}

// A member's root: its runner on its own thread, following the scripted link.
struct CoordinatedRunner : test::RunnerParts {
  CoordinatedRunner() : RunnerParts("b.c", 5) {
    runner.emplace(RunnerSettings(), state, points, writer, 1);
    runner->follow_coordinator(
        &link, [this](const std::string& name) { return name == "b.c:5" ? line->key : 0; },
        [this](const std::string&) { lost = true; });
    profiler = std::thread([this] { runner->run([] {}); });
  }
  ~CoordinatedRunner() {
    if (profiler.joinable()) {
      exit();
    }
  }
  void exit() {  // as the runtime's shutdown does
    runner->stop();
    profiler.join();
    runner->finish();
  }
  // The coordinator says begin (b.c:5 at 50%; `base_ns`: the run's total so far, for a member
  // that joins an end-to-end run late); true once the runner has begun it.
  bool began(uint64_t experiment, bool whole_run, uint64_t base_ns = 0) {
    LinkEvent e = event(LinkEvent::Kind::kBegin, experiment, base_ns);
    e.line = "b.c:5";
    e.speedup = 50;
    e.whole_run = whole_run;
    link.send(e);
    return eventually([&] { return state.selected.load() == line->key; });
  }
  size_t experiments_written() {
    std::vector<Record> all;
    std::vector<ParseError> errors;
    std::string error;
    EXPECT_TRUE(read_profile(dir.file("p.coz"), &all, &errors, &error)) << error;
    size_t n = 0;
    for (const Record& r : all) {
      n += r.kind == RecordKind::kExperiment;
    }
    return n;
  }

  ScriptedLink link;
  std::atomic<bool> lost{false};
  std::optional<ExperimentRunner> runner;
  std::thread profiler;
};

TEST(CoordinatedExperiments, ItsSamplesGoOutAndTheOthersTotalsComeIn) {
  CoordinatedRunner m;
  ASSERT_TRUE(m.began(3, false));
  EXPECT_EQ(m.state.ledger.delay_ns(), 500000u) << "50% of the 1 ms sampling period";
  LocalDelays own;
  m.state.ledger.absorb(own, 500000);  // one of its threads settled a sample of the line
  ASSERT_TRUE(eventually([&] { return m.link.has_sent("raise 3 500000"); }));
  m.link.send(event(LinkEvent::Kind::kRaise, 3, 4000000));
  ASSERT_TRUE(eventually([&] { return m.state.ledger.global_ns() == 4000000; }))
      << "another member's total is this member's";
  m.link.send(event(LinkEvent::Kind::kEnd, 3));
  ASSERT_TRUE(eventually([&] { return m.link.has_sent("ended 3"); }));
  EXPECT_EQ(m.state.selected.load(), 0u);
  EXPECT_EQ(m.experiments_written(), 1u);
}

TEST(CoordinatedExperiments, AWholeRunExperimentIsWrittenAsTheMemberExitsThenSaidToBeEnded) {
  CoordinatedRunner m;
  ASSERT_TRUE(m.began(1, true));
  m.exit();
  EXPECT_EQ(m.experiments_written(), 1u);
  std::vector<std::string> sent = m.link.sent();
  ASSERT_GE(sent.size(), 2u);
  EXPECT_EQ(sent[sent.size() - 2], "forward") << "the record goes before the word that it went";
  EXPECT_EQ(sent.back(), "ended 1");
}

TEST(CoordinatedExperiments, AMemberThatJoinsAWholeRunLateOwesNothingInsertedBeforeIt) {
  CoordinatedRunner m;
  ASSERT_TRUE(m.began(1, true, 10000000));  // the run's total when it joined: 10 ms
  EXPECT_EQ(m.state.ledger.global_ns(), 0u) << "its threads owe none of the 10 ms";
  LocalDelays own;
  m.state.ledger.absorb(own, 3000000);
  ASSERT_TRUE(eventually([&] { return m.link.has_sent("raise 1 13000000"); }))
      << "its own total goes out on the run's scale";
  m.link.send(event(LinkEvent::Kind::kRaise, 1, 15000000));
  ASSERT_TRUE(eventually([&] { return m.state.ledger.global_ns() == 5000000; }))
      << "and the run's comes in on its own";
}

TEST(CoordinatedExperiments, AWholeRunExperimentOutlivesALostCoordinatorAndIsWrittenLocally) {
  CoordinatedRunner m;
  ASSERT_TRUE(m.began(1, true));
  m.link.send(event(LinkEvent::Kind::kLost, 0));
  ASSERT_TRUE(eventually([&] { return m.lost.load(); }));
  EXPECT_EQ(m.state.selected.load(), m.line->key) << "not cut";
  m.exit();
  EXPECT_EQ(m.experiments_written(), 1u);
}

TEST(CoordinatedExperiments, AnExperimentTheCoordinatorNeverEndedIsNotWritten) {
  CoordinatedRunner m;
  ASSERT_TRUE(m.began(2, false));
  m.exit();
  EXPECT_EQ(m.experiments_written(), 0u);
  EXPECT_FALSE(m.link.has_sent("ended 2"));
}

}  // namespace
}  // namespace coz
