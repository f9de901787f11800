// Parsing of the COZ_* environment (see config.h).
#include "runtime/config.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "line/scope.h"

namespace coz {
namespace {

const char* get(const char* name) {
  const char* v = getenv(name);
  return v && *v ? v : nullptr;
}

bool parse_u64(const char* text, uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || text[0] == '-') {
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

Config Config::from_environment(std::vector<std::string>* errors) {
  Config c;
  if (const char* v = get(env::kOutput)) {
    c.output = v;
  }
  if (const char* v = get(env::kBinaryScope)) {
    c.binary_scope = Scope::split_list(v);
  }
  if (const char* v = get(env::kSourceScope)) {
    c.source_scope = Scope::split_list(v);
  }
  if (const char* v = get(env::kIncludeSystem)) {
    c.include_system = v[0] == '1';
  }
  if (const char* v = get(env::kEndToEnd)) {
    c.end_to_end = v[0] == '1';
  }
  if (const char* v = get(env::kFixedLine)) {
    c.fixed_line = v;
  }
  if (const char* v = get(env::kFixedSpeedup)) {
    uint64_t n = 0;
    if (parse_u64(v, &n) && n <= 100) {
      c.fixed_speedup = static_cast<int>(n);
    } else {
      errors->push_back(std::string(env::kFixedSpeedup) + "='" + v + "' is not a percentage 0-100");
    }
  }
  if (const char* v = get(env::kSamplingPeriod)) {
    uint64_t n = 0;
    if (parse_u64(v, &n) && n >= 10000) {
      c.sampling_period_ns = n;
    } else {
      errors->push_back(std::string(env::kSamplingPeriod) + "='" + v +
                        "' must be a period in nanoseconds, at least 10000");
    }
  }
  if (const char* v = get(env::kZeroSpeedupShare)) {
    char* end = nullptr;
    double share = strtod(v, &end);
    if (*end == '\0' && share >= 0 && share <= 1) {
      c.zero_speedup_share = share;
    } else {
      errors->push_back(std::string(env::kZeroSpeedupShare) + "='" + v + "' must be from 0 to 1");
    }
  }
  if (const char* v = get(env::kExperimentLength)) {
    uint64_t n = 0;
    if (parse_u64(v, &n) && n >= 1000000) {
      c.experiment_length_ns = n;
    } else {
      errors->push_back(std::string(env::kExperimentLength) + "='" + v +
                        "' must be nanoseconds, at least 1000000");
    }
  }
  if (const char* v = get(env::kArrivalSpeedup)) {
    uint64_t n = 0;
    if (parse_u64(v, &n) && n <= 60000000000ull) {
      c.arrival_speedup_ns = n;
    } else {
      errors->push_back(std::string(env::kArrivalSpeedup) + "='" + v +
                        "' must be nanoseconds per arrival, at most 60 s");
    }
  }
  if (const char* v = get(env::kLoad)) {
    char* end = nullptr;
    double load = strtod(v, &end);
    if (*end == '\0' && load >= 1 && load <= 1000) {
      c.load = load;
    } else {
      errors->push_back(std::string(env::kLoad) + "='" + v +
                        "' must be a load factor from 1 to 1000");
    }
  }
  if (const char* v = get(env::kBreakpointProgress)) {
    c.breakpoint_progress = Scope::split_list(v);
  }
  if (const char* v = get(env::kSampledProgress)) {
    c.sampled_progress = Scope::split_list(v);
  }
  if (const char* v = get(env::kVerbose)) {
    c.verbose = v[0] != '0';
  }
  if (const char* v = get(env::kRootPid)) {
    uint64_t pid = 0;
    c.is_root_process = parse_u64(v, &pid) && pid == static_cast<uint64_t>(getpid());
  }
  if (const char* v = get(env::kRunId)) {
    parse_u64(v, &c.run_id);
  }
  if (const char* v = get(env::kExecTime)) {
    parse_u64(v, &c.exec_ns);
  }
  if (const char* v = get(env::kDebugPath)) {
    c.debug_path = v;
  }
  return c;
}

}  // namespace coz
