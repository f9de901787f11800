// Where a line's samples came from, as the text report says it (see sample_text.h).
#include "output/sample_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/processes.h"
#include "output/terminal_text.h"

namespace coz::output {
namespace {

// At most this many processes of a run are named one by one, and this many programs in a tag.
constexpr size_t kNamedProcesses = 4;
constexpr size_t kNamedPrograms = 3;

// "server 1200" for one process, "server x3" for several; "pid 1205" and "unknown x3" for
// processes known only by the pid of their samples.
std::string label(const std::string& program, const std::vector<uint64_t>& pids) {
  if (pids.size() == 1) {
    return (program.empty() ? "pid" : terminal_safe(program)) + " " + std::to_string(pids[0]);
  }
  return (program.empty() ? "unknown" : terminal_safe(program)) + " x" +
         std::to_string(pids.size());
}

// "off-cpu 83%" for a line that mostly waits (83% of its samples blocked), else empty.
std::string off_cpu_tag(const analysis::LineSamples& samples) {
  if (!samples.off_cpu) {
    return "";
  }
  char buf[48];
  snprintf(buf, sizeof buf, "off-cpu %.0f%%", samples.blocked_share * 100);
  return buf;
}

// "in: ..." (see sample_tags), or empty.
std::string origin_tag(const analysis::LineSamples& samples, bool several) {
  if (!several) {
    return "";
  }
  std::vector<analysis::ProgramShare> programs = analysis::programs_of(samples.processes);
  if (!analysis::origin_notable(programs)) {
    return "";
  }
  std::string tag = "in:";
  for (size_t i = 0; i < programs.size() && i < kNamedPrograms; i++) {
    const analysis::ProgramShare& g = programs[i];
    tag += (i ? ", " : " ") + label(g.program, g.pids);
    if (programs.size() > 1) {
      tag += " " + std::to_string(std::lround(g.share * 100)) + "%";
    }
  }
  if (programs.size() > kNamedPrograms) {
    tag += ", +" + std::to_string(programs.size() - kNamedPrograms) + " more";
  }
  return tag;
}

}  // namespace

std::string sampler_line(const analysis::ProfileData& data) {
  // The engines that need no perf_event, as the report names them; perf needs no word.
  struct Engine {
    const char* name;
    const char* what;
  };
  static constexpr Engine kEngines[] = {
      {"clock", "a sampling thread reading each thread's CPU clock (--sampler clock)"},
      {"timer", "per-thread CPU-time timers (perf_event was refused, or --sampler timer)"}};
  std::string out;
  for (const Engine& engine : kEngines) {
    size_t runs = 0;
    double resolution_sum = 0;
    size_t resolutions = 0;
    for (const analysis::Run& run : data.runs()) {
      if (run.sampler == engine.name) {
        runs++;
        if (run.sampler_resolution_ns > 0) {
          resolution_sum += run.sampler_resolution_ns;
          resolutions++;
        }
      }
    }
    if (runs == 0) {
      continue;
    }
    std::string line = std::string("sampler: ") + engine.what;
    if (runs < data.runs().size()) {
      line += " in " + std::to_string(runs) + " of " + std::to_string(data.runs().size()) + " runs";
    }
    if (resolutions > 0) {
      char text[96];
      snprintf(text, sizeof text, ", one signal per %.1f ms of a thread's CPU time",
               resolution_sum / static_cast<double>(resolutions) / 1e6);
      line += text;
    }
    out += (out.empty() ? "" : "; ") + line;
  }
  return out.empty()
             ? out
             : out + "; off-CPU waits told by a 1 us gate and the thread's context switches";
}

std::vector<std::string> processes_lines(const analysis::ProfileData& data) {
  std::vector<std::string> out;
  const std::vector<analysis::Run>& runs = data.runs();
  for (size_t n = 0; n < runs.size(); n++) {
    const std::vector<analysis::Process>& processes = runs[n].processes;
    if (processes.size() < 2) {
      continue;
    }
    std::string list;
    auto add = [&list](const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
    if (processes.size() <= kNamedProcesses) {
      for (const analysis::Process& p : processes) {
        std::string item = label(p.program, {p.pid});
        if (!p.root && p.parent != 0) {
          item += " child of " + std::to_string(p.parent);
        }
        add(item);
      }
    } else {
      // The root by its pid; the others by program, a count each, in the order they appear.
      std::vector<std::pair<std::string, std::vector<uint64_t>>> programs;
      for (const analysis::Process& p : processes) {
        if (p.root) {
          add(label(p.program, {p.pid}));
          continue;
        }
        auto it = std::find_if(programs.begin(), programs.end(),
                               [&p](const auto& g) { return g.first == p.program; });
        if (it == programs.end()) {
          programs.emplace_back(p.program, std::vector<uint64_t>{});
          it = programs.end() - 1;
        }
        it->second.push_back(p.pid);
      }
      for (const auto& [program, pids] : programs) {
        add(label(program, pids));
      }
    }
    out.push_back((runs.size() > 1 ? "run " + std::to_string(n + 1) + " " : std::string()) +
                  "processes: " + std::to_string(processes.size()) + " (" + list + ")");
  }
  return out;
}

std::string sample_tags(const analysis::LineSamples& samples, bool several) {
  std::string tags = off_cpu_tag(samples), origin = origin_tag(samples, several);
  return tags + (tags.empty() || origin.empty() ? "" : " ") + origin;
}

std::vector<std::string> sample_legends(const std::vector<analysis::Series>& series, bool several) {
  std::vector<std::string> legends;
  if (std::any_of(series.begin(), series.end(),
                  [](const analysis::Series& s) { return s.samples.off_cpu; })) {
    legends.push_back(
        "off-cpu N%: N% of the line's samples were blocked; the line mostly waits in blocking "
        "calls (I/O, sleep, child processes): less waiting (batching, caching, asynchronous I/O) "
        "helps, not faster code");
  }
  if (std::any_of(series.begin(), series.end(), [several](const analysis::Series& s) {
        return !origin_tag(s.samples, several).empty();
      })) {
    legends.push_back(
        "in: where the line's samples came from, for lines sampled in several programs or only "
        "in child processes: a program and its pid (or xN, N processes of it), and each "
        "program's share of the line's samples");
  }
  return legends;
}

}  // namespace coz::output
