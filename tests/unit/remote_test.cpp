// A run across programs, without sockets: the messages (remote/message.h), what the coordinator
// writes of its members' records (coordinator/run_records.h), the options that hold run-wide
// (coordinator/adopted_options.h), and a member's ledger raised by another's total
// (DelayLedger::raise_to).
#include <gtest/gtest.h>

#include "coordinator/adopted_options.h"
#include "coordinator/run_records.h"
#include "experiment/delay_ledger.h"
#include "experiment/relayed_raises.h"
#include "remote/message.h"

namespace coz {
namespace {

using remote::Message;

TEST(RemoteMessage, AnyValueSurvivesTheLine) {
  std::string hostile = "a b=c%d\te\nf\x01g\x7f h";
  Message m("rec");
  m.with("r", hostile).with("n", uint64_t{42});
  std::string line = remote::encode(m);
  ASSERT_EQ(line.find('\n'), line.size() - 1);  // one line, whatever the value held
  Message back;
  std::string why;
  ASSERT_TRUE(remote::decode(line.substr(0, line.size() - 1), &back, &why)) << why;
  EXPECT_EQ(back.kind, "rec");
  EXPECT_EQ(back.text("r"), hostile);
  uint64_t n = 0;
  EXPECT_TRUE(back.number("n", 100, &n));
  EXPECT_EQ(n, 42u);
  EXPECT_FALSE(back.number("n", 41, &n));  // over its bound
  EXPECT_FALSE(back.number("r", UINT64_MAX, &n));
}

TEST(RemoteMessage, BadLinesAreRefusedWithAReason) {
  Message m;
  std::string why;
  for (const char* bad :
       {"", "Begin exp=1", "begin exp", "begin =1", "begin exp=%zz", "begin exp=%4", "be gin",
        "a 1=1 2=2 3=3 4=4 5=5 6=6 7=7 8=8 9=9 "
        "10=1 11=1 12=1 13=1 14=1 15=1 16=1 17=1"}) {
    why.clear();
    EXPECT_FALSE(remote::decode(bad, &m, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  std::string huge(remote::kMaxLine + 1, 'a');
  EXPECT_FALSE(remote::decode(huge, &m, &why));
  uint64_t n = 0;
  ASSERT_TRUE(remote::decode("raise ns=99999999999999999999999", &m, &why));
  EXPECT_FALSE(m.number("ns", UINT64_MAX, &n));  // overflows: not a number
}

TEST(RemoteMessage, LinesAreSplitAndAnEndlessOneIsAnError) {
  remote::LineSplitter in;
  std::string line;
  in.append("want\nbeg", 8);
  EXPECT_EQ(in.next(&line), 1);
  EXPECT_EQ(line, "want");
  EXPECT_EQ(in.next(&line), 0);
  in.append("in exp=1\n", 9);
  EXPECT_EQ(in.next(&line), 1);
  EXPECT_EQ(line, "begin exp=1");
  remote::LineSplitter endless;
  std::string chunk(4096, 'x');
  for (int i = 0; i < 20; i++) {
    endless.append(chunk.data(), chunk.size());
  }
  EXPECT_EQ(endless.next(&line), -1);
}

TEST(RunRecords, AMembersStartupIsAProcessOfTheRunOnItsHost) {
  std::string out;
  EXPECT_EQ(coordinator::use_of_line("startup\ttime=5\tformat=1\tpid=7\tparent=3\t"
                                     "sampling-period=1000000\tprogram=./back",
                                     "host-b", &out),
            coordinator::LineUse::kWrite);
  EXPECT_EQ(out, "process\ttime=5\tpid=7\tprogram=./back\thost=host-b");
  EXPECT_EQ(coordinator::use_of_line("samples\tlocation=a.c:3\tcount=4\tpid=7", "h\tx y", &out),
            coordinator::LineUse::kWrite);
  EXPECT_EQ(out, "samples\tlocation=a.c:3\tcount=4\tpid=7\thost=hxy");
  EXPECT_EQ(coordinator::use_of_line("runtime\ttime=9", "h", &out), coordinator::LineUse::kDrop);
  EXPECT_EQ(coordinator::use_of_line("experiment\tselected=a.c:1", "h", &out),
            coordinator::LineUse::kExperiment);
  EXPECT_EQ(coordinator::use_of_line("throughput-point\tname=p\tdelta=3", "h", &out),
            coordinator::LineUse::kPoint);
}

TEST(RunRecords, AnExperimentIsMergedFromItsMembers) {
  coordinator::RunExperiment run;
  run.line = "back.c:62";
  run.speedup = 50;
  run.elapsed_ns = 999;
  run.start_ns = 10;
  run.run_id = 5;
  std::vector<coordinator::MemberExperiment> members = {
      {"experiment\tselected=back.c:62\tspeedup=0.50\tduration=1\tselected-samples=30\t"
       "elapsed=510\tdelay-size=500000\tinserted=17000000",
       {}},
      {"experiment\tselected=back.c:62\tspeedup=0.50\tduration=1\tselected-samples=2\t"
       "elapsed=500000000\tdelay-size=500000\tinserted=16000000",
       {"throughput-point\tname=front.c:9\tdelta=1000",
        "latency-point\tname=req\tarrivals=4\t"
        "departures=3\tdifference=1\tin-flight-ns=7"}},
      {"experiment\tselected=back.c:62\tspeedup=0.50\tduration=1\tselected-samples=0\t"
       "elapsed=400000000\tinserted=16000000",
       {"throughput-point\tname=front.c:9\tdelta=10"}}};
  coordinator::MergedVisits visits;
  std::string block = coordinator::merge_experiment(run, members, &visits);
  // The elapsed time of the member whose points saw the most visits, the highest delay total any
  // member ended with (the back's own: its last raises had not reached the front); points summed
  // by name.
  EXPECT_EQ(
      block,
      "experiment\tselected=back.c:62\tspeedup=0.50\tduration=483000000\tselected-samples=32\t"
      "elapsed=500000000\tdelays=34\tdelay-size=500000\tinserted=17000000\tstart=10\trun=5\n"
      "throughput-point\tname=front.c:9\tdelta=1010\n"
      "latency-point\tname=req\tarrivals=4\tdepartures=3\tdifference=1\tin-flight-ns=7\n");
  EXPECT_EQ(visits.total, 1017u) << "a latency point's arrivals and departures";
  EXPECT_EQ(visits.fewest, 7u) << "the least visited point, over the members: req";
}

TEST(RunRecords, AnArrivalCountIsNoProgressPointsVisits) {
  coordinator::RunExperiment run;
  run.line = "a.c:1";
  coordinator::MergedVisits visits;
  coordinator::merge_experiment(
      run,
      {{"experiment\tselected=a.c:1\telapsed=100",
        {"throughput-point\tname=done\tdelta=300", "arrival-point\tname=req\tarrivals=0"}}},
      &visits);
  EXPECT_EQ(visits.total, 300u);
  EXPECT_EQ(visits.fewest, 300u) << "so a busy run's experiments may still shorten";
}

TEST(RunRecords, WithoutPointsTheCoordinatorsOwnTimeIsUsed) {
  coordinator::RunExperiment run;
  run.line = "a.c:1";
  run.elapsed_ns = 100;
  run.inserted_ns = 300;  // never more than the time itself
  coordinator::MergedVisits visits;
  std::string block = coordinator::merge_experiment(
      run, {{"experiment\tselected=a.c:1\tselected-samples=1", {}}}, &visits);
  EXPECT_NE(block.find("\tduration=0\t"), std::string::npos) << block;
  EXPECT_NE(block.find("\telapsed=100\t"), std::string::npos) << block;
  EXPECT_EQ(visits.total, 0u);
  EXPECT_EQ(visits.fewest, 0u);
}

TEST(RunOptions, TheFirstToNameAnExperimentSetsItForTheWholeRun) {
  coordinator::Settings run;
  Message first("hello");
  first.with("fixed-line", "a.c:3").with("fixed-speedup", uint64_t{40}).with("end-to-end", "1");
  coordinator::Adopted a = coordinator::adopt_run_options(first, &run);
  EXPECT_EQ(a.refusal, "");
  EXPECT_EQ(a.taken,
            (std::vector<std::string>{"--fixed-line a.c:3", "--fixed-speedup 40", "--end-to-end"}));
  EXPECT_EQ(run.fixed_line, "a.c:3");
  EXPECT_EQ(run.fixed_speedup, 40);
  EXPECT_TRUE(run.end_to_end);
  // The same again, or nothing: taken, changing nothing.
  EXPECT_EQ(coordinator::adopt_run_options(first, &run).refusal, "");
  EXPECT_TRUE(coordinator::adopt_run_options(Message("hello"), &run).taken.empty());
  // A different line or speedup: refused, the run's unchanged.
  Message other("hello");
  other.with("fixed-line", "b.c:9");
  EXPECT_NE(coordinator::adopt_run_options(other, &run).refusal.find("not the run's a.c:3"),
            std::string::npos);
  Message faster("hello");
  faster.with("fixed-speedup", uint64_t{80});
  EXPECT_NE(coordinator::adopt_run_options(faster, &run).refusal, "");
  EXPECT_EQ(run.fixed_line, "a.c:3");
  EXPECT_EQ(run.fixed_speedup, 40);
}

TEST(RunOptions, AMemberThatOnlyAsksForEndToEndIsTaken) {
  coordinator::Settings run;
  run.fixed_line = "a.c:3";  // the coordinator's
  Message late("hello");
  late.with("end-to-end", "1");
  coordinator::Adopted a = coordinator::adopt_run_options(late, &run);
  EXPECT_EQ(a.refusal, "");
  EXPECT_EQ(a.taken, std::vector<std::string>{"--end-to-end"});
  EXPECT_TRUE(run.end_to_end);
  EXPECT_EQ(run.fixed_line, "a.c:3");
}

TEST(RemoteLedger, AnotherMembersTotalIsOwedByEveryThread) {
  DelayLedger ledger;
  ledger.begin(1000);
  LocalDelays sampled, other;
  ledger.absorb(sampled, 3000);          // this member's own samples: 3 us
  EXPECT_EQ(ledger.raise_to(2000), 0u);  // lower than this member's own: nothing
  EXPECT_EQ(ledger.raise_to(10000), 7000u);
  EXPECT_EQ(ledger.owed(other), 10000u);
  EXPECT_EQ(ledger.owed(sampled), 7000u);
  ledger.end();
  EXPECT_EQ(ledger.raise_to(50000), 0u);  // no experiment: nothing to raise
}

TEST(RelayedRaises, ATotalCountsOnlyForWakesAfterItsSamples) {
  RelayedRaises raises;
  EXPECT_EQ(raises.total_by(1, 1000), 0u);
  raises.add(1, 500, 100);   // raised to 500 ns by samples at t=100
  raises.add(1, 900, 300);   // to 900 ns at t=300
  raises.add(2, 7000, 200);  // another experiment's
  EXPECT_EQ(raises.total_by(1, 99), 0u);
  EXPECT_EQ(raises.total_by(1, 100), 500u);
  EXPECT_EQ(raises.total_by(1, 299), 500u);
  EXPECT_EQ(raises.total_by(1, 5000), 900u);
  EXPECT_EQ(raises.total_by(2, 5000), 7000u);
  for (uint64_t i = 0; i < 2 * RelayedRaises::kSlots; i++) {  // the oldest are written over
    raises.add(3, 10 + i, 1000 + i);
  }
  EXPECT_EQ(raises.total_by(1, 5000), 0u);
  EXPECT_EQ(raises.total_by(3, 1000 + 2 * RelayedRaises::kSlots), 9 + 2 * RelayedRaises::kSlots);
}

}  // namespace
}  // namespace coz
