// Thread registry: descriptors find their thread, states are recycled, detach drains what is left,
// and the descriptor index has no fixed thread limit.
#include "threads/thread_registry.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

namespace coz {
namespace {

// A sampler with scripted samples and a real (pipe) descriptor number.
class ScriptedSampler : public ThreadSampler {
 public:
  explicit ScriptedSampler(std::vector<uintptr_t> ips) : ips_(std::move(ips)) {
    int fds[2];
    if (pipe(fds) == 0) {
      fd_ = fds[0];
      close(fds[1]);
    }
  }
  ~ScriptedSampler() override { close(fd_); }
  void enable() override { enabled_ = true; }
  void disable() override { enabled_ = false; }
  size_t drain(SampleVisitor visit, void* context) override {
    for (uintptr_t ip : ips_) {
      visit(Sample{ip, nullptr, 0, nullptr, 0}, context);
    }
    size_t n = ips_.size();
    ips_.clear();
    return n;
  }
  int signal_token() const override { return fd_; }
  uint64_t lost() const override { return 0; }

  bool enabled_ = false;

 private:
  std::vector<uintptr_t> ips_;
  int fd_ = -1;
};

class ScriptedBackend : public SamplerBackend {
 public:
  SamplerKind kind() const override { return SamplerKind::kPerf; }
  const char* name() const override { return "scripted"; }
  bool reads_signal(const siginfo_t&, SignalSample*) const override { return false; }
  std::unique_ptr<ThreadSampler> open_thread(pid_t tid, std::string* error) override {
    if (tid < 0) {
      *error = "refused";
      return nullptr;
    }
    return std::make_unique<ScriptedSampler>(std::vector<uintptr_t>{1, 2, 3});
  }
};

size_t live_count(ThreadRegistry& registry) {
  size_t n = 0;
  registry.for_each_live([&n](ThreadState&) { n++; });
  return n;
}

void collect(const Sample& s, void* ctx) {
  static_cast<std::vector<uintptr_t>*>(ctx)->push_back(s.ip);
}

TEST(ThreadRegistry, AttachFindDetachRecycle) {
  ThreadRegistry registry;
  ScriptedBackend backend;
  std::string error;
  ThreadState* a = registry.attach(101, &backend, &error);
  ThreadState* b = registry.attach(102, &backend, &error);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(registry.by_fd(a->sampler->signal_token()), a);
  EXPECT_EQ(registry.by_fd(b->sampler->signal_token()), b);
  EXPECT_EQ(registry.by_fd(-1), nullptr);
  EXPECT_EQ(registry.by_fd(1 << 30), nullptr);
  EXPECT_EQ(live_count(registry), 2u);
  EXPECT_TRUE(static_cast<ScriptedSampler*>(a->sampler.get())->enabled_);

  int fd_a = a->sampler->signal_token();
  std::vector<uintptr_t> drained;
  registry.detach(a, collect, &drained);
  EXPECT_EQ(drained, (std::vector<uintptr_t>{1, 2, 3}));
  EXPECT_EQ(registry.by_fd(fd_a), nullptr);
  EXPECT_EQ(a->tid.load(), 0);
  EXPECT_EQ(live_count(registry), 1u);

  ThreadState* c = registry.attach(103, &backend, &error);
  EXPECT_EQ(c, a) << "states are recycled, never freed";
  EXPECT_EQ(c->tid.load(), 103);

  int live = 0;
  registry.for_each_live([&](ThreadState&) { live++; });
  EXPECT_EQ(live, 2);
  EXPECT_EQ(registry.total_attached(), 3u);
}

TEST(ThreadRegistry, DetachInAnyOrderKeepsTheOthersLive) {
  ThreadRegistry registry;
  ScriptedBackend backend;
  std::string error;
  std::vector<ThreadState*> s;
  for (pid_t tid = 201; tid <= 205; tid++) {
    s.push_back(registry.attach(tid, &backend, &error));
  }
  auto live_tids = [&] {
    std::vector<pid_t> tids;
    registry.for_each_live([&](ThreadState& t) { tids.push_back(t.tid.load()); });
    return tids;
  };
  registry.detach(s[2], nullptr, nullptr);  // middle
  EXPECT_EQ(live_tids(), (std::vector<pid_t>{205, 204, 202, 201}));
  registry.detach(s[4], nullptr, nullptr);  // the newest (head)
  registry.detach(s[0], nullptr, nullptr);  // the oldest (tail)
  EXPECT_EQ(live_tids(), (std::vector<pid_t>{204, 202}));
  EXPECT_EQ(live_count(registry), 2u);
  ThreadState* again = registry.attach(206, &backend, &error);
  EXPECT_EQ(live_tids(), (std::vector<pid_t>{206, 204, 202}));
  registry.detach(again, nullptr, nullptr);
  registry.detach(s[1], nullptr, nullptr);
  registry.detach(s[3], nullptr, nullptr);
  EXPECT_TRUE(live_tids().empty());
  EXPECT_EQ(live_count(registry), 0u);
}

TEST(ThreadRegistry, StartUpScanAndTheThreadItselfShareOneState) {
  ThreadRegistry registry;
  ScriptedBackend backend;
  std::string error;
  // The thread attached itself first; the scan then finds it in /proc/self/task.
  ThreadState* self_first = registry.attach(301, &backend, &error);
  EXPECT_EQ(registry.attach(301, &backend, &error, /*scan=*/true), self_first);
  // The scan attached it first; the thread then attaches itself, once.
  ThreadState* scanned = registry.attach(302, &backend, &error, /*scan=*/true);
  EXPECT_EQ(registry.attach(302, &backend, &error), scanned);
  EXPECT_EQ(live_count(registry), 2u);
  registry.detach(scanned, nullptr, nullptr);
  // Its tid used again by a new thread: a state of its own, not the recycled one's old claim.
  ThreadState* reused = registry.attach(302, &backend, &error);
  EXPECT_EQ(reused->tid.load(), 302);
  EXPECT_EQ(live_count(registry), 2u);
}

TEST(ThreadRegistry, AttachFailureReportsTheBackendError) {
  ThreadRegistry registry;
  ScriptedBackend backend;
  std::string error;
  EXPECT_EQ(registry.attach(-1, &backend, &error), nullptr);
  EXPECT_EQ(error, "refused");
}

TEST(ThreadRegistry, ManyThreadsBeyondAnyFixedTable) {
  rlimit limit;
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;  // as many descriptors as this process may have
  setrlimit(RLIMIT_NOFILE, &limit);
  ThreadRegistry registry;
  ScriptedBackend backend;
  std::string error;
  std::vector<ThreadState*> states;
  for (int i = 0; i < 5000 && states.size() < 5000; i++) {
    ThreadState* s = registry.attach(1000 + i, &backend, &error);
    if (!s) {
      break;  // out of descriptors: the limit is the process's, not the registry's
    }
    states.push_back(s);
  }
  ASSERT_GT(states.size(), 900u);
  for (ThreadState* s : states) {
    ASSERT_EQ(registry.by_fd(s->sampler->signal_token()), s);
  }
  for (ThreadState* s : states) {
    registry.detach(s, nullptr, nullptr);
  }
  EXPECT_EQ(live_count(registry), 0u);
}

}  // namespace
}  // namespace coz
