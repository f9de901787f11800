// Other writers' spellings of the profile's names (see vocabulary.h).
#include "record/vocabulary.h"

namespace coz::vocab {
namespace {

constexpr std::string_view kTypes[] = {kStartup,      kExperiment, kThroughputPoint, kLatencyPoint,
                                       kArrivalPoint, kSamples,    kRuntime,         kWarning,
                                       kProcess,      kCounts};

constexpr std::string_view kKeys[] = {
    key::kTime,           key::kFormat,     key::kPid,
    key::kSamplingPeriod, key::kProgram,    key::kSelected,
    key::kSpeedup,        key::kDuration,   key::kSelectedSamples,
    key::kElapsed,        key::kDelays,     key::kDelaySize,
    key::kInserted,       key::kStart,      key::kRun,
    key::kArrivalSpeedup, key::kLoadTarget, key::kArrivalSpeedupTotal,
    key::kLoad,           key::kName,       key::kDelta,
    key::kArrivals,       key::kDepartures, key::kDifference,
    key::kInFlightNs,     key::kLocation,   key::kCount,
    key::kMessage,        key::kBlocked,    key::kOffCpu,
    key::kParent,         key::kOwed,       key::kLayout};

// The known name that `name` spells with underscores for hyphens, or `name`.
template <size_t N>
std::string_view with_hyphens(std::string_view name, const std::string_view (&known)[N]) {
  if (name.find('_') == std::string_view::npos) {
    return name;
  }
  for (std::string_view k : known) {
    if (k.size() != name.size()) {
      continue;
    }
    bool same = true;
    for (size_t i = 0; i < k.size() && same; i++) {
      same = k[i] == name[i] || (k[i] == '-' && name[i] == '_');
    }
    if (same) {
      return k;
    }
  }
  return name;
}

}  // namespace

std::string_view canonical_type(std::string_view type) {
  if (type == "progress-point") {
    return kThroughputPoint;  // Coz 0.1
  }
  return with_hyphens(type, kTypes);
}

std::string_view canonical_key(std::string_view key) {
  return with_hyphens(key, kKeys);
}

}  // namespace coz::vocab
