// A member's experiments in a run across programs (see ExperimentRunner::follow_coordinator):
// the coordinator's messages drive the runner; the run-wide delay total flows both ways.
//
// The delay total of an experiment is one number for the whole run: the highest any thread of
// any member reached (delay_ledger.h: a thread ahead raises it, every other thread owes the
// difference). Each member raises its own copy with its own samples and sends it on when it
// rose; the coordinator keeps the highest and relays it to the others, who raise their copy to
// it (DelayLedger::raise_to): their threads then owe the difference and pay it at their next
// sample or hook, up to 10 ms and a network round trip after the sample that caused it. Each
// raise carries when its samples were taken, so a thread that another member woke is credited
// with the raises made before it woke (RelayedRaises), however late they arrive.
#include <vector>

#include "profiler/experiment_runner.h"
#include "remote/link.h"

namespace coz {

void ExperimentRunner::follow(const std::function<void()>& idle) {
  uint64_t sent_ns = 0;  // the highest total this member sent or was told
  // The run's total when this member began the experiment (one end to end that it joined late):
  // its own ledger counts from there, so it owes none of what was inserted before it joined.
  uint64_t base_ns = 0;
  bool lost = false;
  uint64_t last_idle_ns = now_ns();
  std::vector<remote::LinkEvent> events;
  while (!wait(lost ? 10000000 : 0) && !async_stop_.load(std::memory_order_acquire)) {
    events.clear();
    // Woken by the coordinator, or after 10 ms (1 ms while latency points integrate requests in
    // flight): this member's raises go out at most every 10 ms, not at each sample
    // (docs/measured-choices.md). A thread woken by another member is credited with its raises
    // however late they arrive (credit_relayed), so only threads running beside the line pay a
    // raise later, and the total is the same.
    link_->poll(is_open_ && points_.any_latency() ? 1 : 10, &events);
    for (const remote::LinkEvent& e : events) {
      switch (e.kind) {
        case remote::LinkEvent::Kind::kWant:
          state_.want_line.store(true, std::memory_order_release);
          break;
        case remote::LinkEvent::Kind::kBegin:
          if (is_open_) {
            cut();  // an end that never came
          }
          begin(Choice{key_of_(e.line), e.line}, e.speedup);
          coordinated_ = e.experiment;
          whole_run_ = e.whole_run;
          base_ns = e.ns;
          sent_ns = 0;
          break;
        case remote::LinkEvent::Kind::kRaise:
          if (is_open_ && e.experiment == coordinated_ && e.ns > base_ns) {
            uint64_t ns = e.ns - base_ns;
            state_.relayed.add(state_.ledger.epoch(), ns, e.at_ns);  // before the word moves
            state_.ledger.raise_to(ns);
            sent_ns = ns > sent_ns ? ns : sent_ns;
          }
          break;
        case remote::LinkEvent::Kind::kEnd:
          if (is_open_ && e.experiment == coordinated_) {
            end();  // written to the local profile, forwarded below
            link_->forward_profile();
            link_->ended(coordinated_);
          }
          break;
        case remote::LinkEvent::Kind::kLost:
          if (!lost) {
            lost = true;
            if (is_open_ && !whole_run_) {
              cut();  // an end-to-end one goes on, written to the local profile at exit
            }
            state_.want_line.store(false, std::memory_order_release);
            on_lost_(link_->why_lost());
          }
          break;
      }
    }
    Choice offered;
    if (!lost && state_.offered.take(&offered.key, &offered.name)) {
      link_->offer(offered.name);
      state_.want_line.store(false, std::memory_order_release);  // until asked again
    }
    if (is_open_) {
      uint64_t total = state_.ledger.global_ns();
      if (total > sent_ns) {
        link_->raise(coordinated_, total + base_ns,
                     state_.last_raise_ns.load(std::memory_order_relaxed));
        sent_ns = total;
      }
    }
    uint64_t now = now_ns();
    tick();
    if (now - last_idle_ns >= 10000000) {  // as the local loop: new libraries, the profile
      last_idle_ns = now;
      idle();
      link_->forward_profile();
    }
  }
}

}  // namespace coz
