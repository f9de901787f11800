// Profiles of several processes (tests/golden/processes.coz): a root, a child forked from it, a
// grandchild that exec'd another program, and a process known only by the pid of its samples.
// Their samples records (some written between the root's experiment blocks, some after its final
// runtime record) add up per line; each run lists its processes; the text and the JSON say which
// processes sampled each line. Profiles without pids read exactly as before.
#include "analysis/processes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <regex>

#include "analysis/line_samples.h"
#include "output/report_output.h"
#include "unit/golden.h"
#include "unit/profile_text.h"

namespace coz::analysis {
namespace {

class Processes : public test::Golden {
 protected:
  // The golden profile's text, each line through `edit` (which may make it several, or none).
  static std::string golden_text(const std::function<std::string(const std::string&)>& edit) {
    std::ifstream in("processes.coz");
    std::string text;
    for (std::string line; std::getline(in, line);) {
      text += edit(line);
    }
    return text;
  }
};

const ProcessSamples* part(const LineSamples& s, uint64_t pid) {
  for (const ProcessSamples& p : s.processes) {
    if (p.pid == pid) {
      return &p;
    }
  }
  return nullptr;
}

TEST_F(Processes, ChildRecordsJoinTheRunAndTheirSamplesAddUp) {
  Report r = analyse_files({"processes.coz"});
  // A `process` record begins no run, and one between experiment blocks (like a child's samples
  // record there) ends no experiment: every experiment keeps its point, and nothing is skipped.
  EXPECT_EQ(r.runs, 1u);
  EXPECT_EQ(r.experiments, 30u);
  for (const Experiment& e : data_.experiments()) {
    EXPECT_EQ(e.points.size(), 1u) << e.line.name;
  }
  EXPECT_TRUE(data_.inputs()[0].errors.empty());
  EXPECT_TRUE(data_.warnings().empty());
  EXPECT_EQ(data_.sample_records(), 7u);

  const analysis::Run& run = data_.runs()[0];
  ASSERT_EQ(run.processes.size(), 4u);
  const Process& root = run.processes[0];
  EXPECT_TRUE(root.root);
  EXPECT_EQ(root.pid, 1200u);
  EXPECT_EQ(root.parent, 1u);
  EXPECT_EQ(root.program, "server");
  EXPECT_EQ(run.processes[1].pid, 1201u);
  EXPECT_EQ(run.processes[1].parent, 1200u);
  EXPECT_EQ(run.processes[2].program, "worker");
  EXPECT_EQ(run.processes[2].parent, 1201u);
  EXPECT_EQ(run.processes[3].pid, 1299u);  // samples alone named it
  EXPECT_EQ(run.processes[3].program, "");
  EXPECT_TRUE(several_processes(data_));

  // Per line, every process's records add up: work.c:20's two records from 1202 (one mid-run,
  // one after `runtime`), serve.c:10's from three processes.
  std::map<std::string, LineSamples> lines = line_samples(data_);
  const LineSamples& serve = lines.at("/src/serve.c:10");
  EXPECT_EQ(serve.running, 9500);
  EXPECT_EQ(serve.blocked, 500);
  ASSERT_EQ(serve.processes.size(), 3u);
  EXPECT_EQ(part(serve, 1200)->running, 4000);
  EXPECT_TRUE(part(serve, 1200)->root);
  EXPECT_EQ(part(serve, 1201)->running, 5000);
  EXPECT_EQ(part(serve, 1201)->blocked, 500);
  EXPECT_EQ(part(serve, 1299)->running, 500);
  const LineSamples& work = lines.at("/src/work.c:20");
  EXPECT_EQ(work.running, 10000);
  ASSERT_EQ(work.processes.size(), 1u);
  EXPECT_EQ(work.processes[0].pid, 1202u);
  EXPECT_EQ(work.processes[0].running, 10000);

  // By program: serve.c:10 has two (one unknown), parse.c:30 two, work.c:20 only a child.
  std::vector<ProgramShare> by_program = programs_of(serve.processes);
  ASSERT_EQ(by_program.size(), 2u);
  EXPECT_EQ(by_program[0].program, "server");
  EXPECT_EQ(by_program[0].pids, (std::vector<uint64_t>{1200, 1201}));
  EXPECT_NEAR(by_program[0].share, 0.95, 1e-12);
  EXPECT_TRUE(by_program[0].root);
  EXPECT_TRUE(origin_notable(by_program));
  EXPECT_TRUE(origin_notable(programs_of(work.processes)));

  output::RenderContext ctx{r, data_, "impact"};
  std::string text = output::render_text(ctx);
  EXPECT_NE(
      text.find("\nprocesses: 4 (server 1200, server 1201 child of 1200, worker 1202 child of "
                "1201, pid 1299)\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(" in: server x2 95%, pid 1299 5%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("significant in: worker 1202\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  in: server 1201 75%, worker 1202 25%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("in: where the line's samples came from"), std::string::npos) << text;
  expect_golden(r, "processes");
}

// The same profile with no pid and no process record reads as profiles always have: the samples
// are the root's, the text names no process, the JSON has no `processes`, and the counts per line
// are the same.
TEST_F(Processes, ProfilesWithoutPidsReadAsBefore) {
  Report with = analyse_files({"processes.coz"});
  std::map<std::string, LineSamples> split = line_samples(data_);
  std::string old = golden_text([](const std::string& line) {
    return line.rfind("process\t", 0) == 0
               ? ""
               : std::regex_replace(line, std::regex("\t(pid|parent)=[0-9]+"), "") + "\n";
  });
  ASSERT_EQ(old.find("pid="), std::string::npos);
  ProfileData data = test::from_text(old);
  EXPECT_TRUE(data.inputs()[0].errors.empty());
  EXPECT_EQ(data.experiments().size(), 30u);
  ASSERT_EQ(data.runs()[0].processes.size(), 1u);
  EXPECT_FALSE(several_processes(data));
  for (const auto& [line, s] : line_samples(data)) {
    EXPECT_EQ(s.running, split.at(line).running) << line;
    EXPECT_EQ(s.blocked, split.at(line).blocked) << line;
    ASSERT_EQ(s.processes.size(), 1u);
    EXPECT_TRUE(s.processes[0].root);
  }
  Report r = analyse(data, AnalysisOptions{});
  rank(&r.series, SortOrder::kImpact);
  output::RenderContext ctx{r, data, "impact"};
  std::string text = output::render_text(ctx);
  EXPECT_EQ(text.find("processes"), std::string::npos) << text;
  EXPECT_EQ(text.find("in:"), std::string::npos) << text;
  EXPECT_EQ(output::render_json(ctx).find("\"processes\""), std::string::npos);

  // A single process that writes pids is a single-process profile too.
  ProfileData one = test::from_text(golden_text([](const std::string& line) {
    return line.rfind("process\t", 0) == 0
               ? ""
               : std::regex_replace(line, std::regex("\tpid=1(20[12]|299)"), "\tpid=1200") + "\n";
  }));
  EXPECT_FALSE(several_processes(one)) << one.runs()[0].processes.size();
}

// Many processes of one program collapse into a count in the header.
TEST_F(Processes, ManyProcessesOfOneProgramAreCounted) {
  std::string text = golden_text([](const std::string& line) {
    return (line.rfind("runtime\t", 0) == 0 ? "process\tpid=1301\tparent=1201\tprogram=worker\n"
                                              "process\tpid=1302\tparent=1201\tprogram=worker\n"
                                            : "") +
           line + "\n";
  });
  ProfileData data = test::from_text(text);
  Report r = analyse(data, AnalysisOptions{});
  std::string out = output::render_text(output::RenderContext{r, data, "impact"});
  EXPECT_NE(out.find("\nprocesses: 6 (server 1200, server 1201, worker x3, pid 1299)\n"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace coz::analysis
