// The run configuration in the environment (see run_config.h): what `coz run` exports and the
// one place the table's variables are read, for the runtime and for commands that need one.
#include <cstdlib>
#include <string_view>

#include "config/run_config.h"

namespace coz {

std::vector<std::pair<std::string, std::string>> to_environment(const RunConfig& config) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ConfigOption& o : run_config_options()) {
    if (o.source != OptionSource::kUser) {
      out.emplace_back(o.env, o.format(config));
    }
  }
  return out;
}

void export_to_environment(const RunConfig& config) {
  for (const auto& [name, value] : to_environment(config)) {
    if (value.empty()) {
      unsetenv(name.c_str());
    } else {
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
}

namespace {

// The one read of the environment: an option's variable, empty counting as unset.
const char* environment_value(const ConfigOption& o, EnvLookup lookup) {
  const char* v = lookup ? lookup(o.env) : getenv(o.env);
  return v && *v ? v : nullptr;
}

bool read_option(const ConfigOption& o, const char* value, RunConfig* c, std::string* error) {
  std::string why;
  if (!o.parse(value, c, &why)) {
    *error = std::string(o.env) + "='" + value + "' " + why;
    return false;
  }
  return true;
}

}  // namespace

RunConfig from_environment(std::vector<std::string>* errors, EnvLookup lookup) {
  RunConfig c;
  for (const ConfigOption& o : run_config_options()) {
    std::string error;
    if (const char* v = environment_value(o, lookup); v && !read_option(o, v, &c, &error)) {
      errors->push_back(error);
    }
  }
  std::string error;
  if (!validate(c, &error)) {
    errors->push_back(error);
  }
  return c;
}

bool read_from_environment(const char* env, RunConfig* config, std::string* error,
                           EnvLookup lookup) {
  for (const ConfigOption& o : run_config_options()) {
    if (std::string_view(o.env) == env) {
      const char* v = environment_value(o, lookup);
      return !v || read_option(o, v, config, error);
    }
  }
  *error = std::string(env) + " is no option of the run";  // a caller's mistake
  return false;
}

uint64_t early_layout_seed() {
  const char* counts = getenv(kCountOnlyVariable);
  const char* seed = getenv(kLayoutVariable);
  if (!counts || !*counts || !seed || *seed < '0' || *seed > '9') {
    return 0;
  }
  char* end = nullptr;
  unsigned long long value = strtoull(seed, &end, 10);
  return *end == '\0' ? value : 0;
}

}  // namespace coz
