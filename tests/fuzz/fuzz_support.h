// Shared by the fuzz targets: any bytes as a profile file (a memfd, read through /proc/self/fd
// like any path), analysed as `coz report` does, with every number of the report checked finite.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"

namespace coz::fuzz {

// Writes `data` into a reusable in-memory file and returns a path that opens it.
inline std::string as_file(const uint8_t* data, size_t size) {
  static int fd = memfd_create("coz-fuzz-profile", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 0) != 0 ||
      (size > 0 && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
    abort();
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

inline void check_finite(double v, const char* what) {
  if (!std::isfinite(v)) {
    fprintf(stderr, "not finite: %s = %g\n", what, v);
    abort();
  }
}

inline void check_estimate(const analysis::Estimate& e, const char* what) {
  check_finite(e.value, what);
  if (e.has_interval) {
    check_finite(e.low, what);
    check_finite(e.high, what);
  }
}

// Every number the report shows must be finite, whatever the profile said.
inline void check_report(const analysis::Report& r) {
  check_finite(r.runtime_ns, "runtime_ns");
  for (const analysis::Series& s : r.series) {
    check_estimate(s.impact, "impact");
    check_estimate(s.slope, "slope");
    check_finite(s.phase_factor, "phase_factor");
    check_finite(s.max_speedup, "max_speedup");
    check_finite(s.p_value, "p_value");
    for (const analysis::CurvePoint& p : s.curve) {
      check_estimate(p.program_speedup, "program_speedup");
      check_finite(p.uncorrected, "uncorrected");
      check_finite(p.visits, "visits");
      check_finite(p.duration_ns, "duration_ns");
      check_finite(p.value_ns, "value_ns");
    }
  }
  for (const analysis::ScalabilityRow& row : r.scalability) {
    check_estimate(row.throughput_per_s, "throughput_per_s");
    check_estimate(row.latency_ns, "latency_ns");
    check_finite(row.achieved_load, "achieved_load");
    check_finite(row.relative_throughput, "relative_throughput");
  }
}

// Few bootstrap replicates, so each input runs in milliseconds.
inline analysis::AnalysisOptions quick_options() {
  analysis::AnalysisOptions o;
  o.bootstrap = 20;
  o.min_speedups = 2;
  return o;
}

}  // namespace coz::fuzz
