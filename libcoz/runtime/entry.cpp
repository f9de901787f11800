// The library's entry points: constructor, destructor, and the exported progress-point ABI.
#include "platform.h"
#include "runtime/runtime.h"

namespace {

// Progress points exist for the whole process, before the runtime starts and after it stops, so
// a site visited early (by another library's constructor) is not cut off for good.
coz::ProgressPoints& process_progress_points() {
  static auto* points = new coz::ProgressPoints();  // never destroyed: counters live forever
  return *points;
}

__attribute__((constructor)) void coz_start() {
  std::vector<std::string> errors;
  coz::Config config = coz::Config::from_environment(&errors);
  if (!errors.empty()) {
    for (const std::string& e : errors) {
      coz::platform::write_stderr(("coz: error: " + e + "; running without profiling\n").c_str());
    }
    return;
  }
  // Never freed: threads may still be running (and taking samples) while the process exits.
  auto* runtime = new coz::Runtime(std::move(config), process_progress_points());
  runtime->start();
}

__attribute__((destructor)) void coz_stop() {
  if (coz::Runtime* rt = coz::Runtime::active()) {
    rt->shutdown();
  }
}

}  // namespace

// Coz's ABI: the counter for a progress point (1 = throughput, 2 = begin, 3 = end), or null for
// an unknown type. Called once per macro site by coz.h.
extern "C" __attribute__((visibility("default"))) void* _coz_get_counter(int type, const char* name) {
  return process_progress_points().get(type, name);
}
