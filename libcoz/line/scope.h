// Profiling scope: which loaded objects (binary scope) and which source files (source scope) the
// profiler may select lines from. Patterns use `%` (Coz's wildcard) or `*`, both matching any run
// of characters including '/'. A pattern without '/' is matched against the base name as well as
// the full path, so `-s main.c` works. The binary-scope keyword MAIN names the main executable.
// coz.h is never in source scope. Immutable after construction; safe to share between threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coz {

// True when `text` matches `pattern` in full.
bool pattern_matches(std::string_view pattern, std::string_view text);

class Scope {
 public:
  // Empty lists mean the defaults: binary scope MAIN, source scope everything.
  Scope(std::vector<std::string> binary_patterns, std::vector<std::string> source_patterns);
  Scope() : Scope({}, {}) {}

  bool includes_binary(std::string_view path, bool is_main) const;
  bool includes_source(std::string_view file) const;

  const std::vector<std::string>& binary_patterns() const { return binary_; }
  const std::vector<std::string>& source_patterns() const { return source_; }

  // Splits a comma-separated list ("a,b") into patterns.
  static std::vector<std::string> split_list(std::string_view list);

 private:
  std::vector<std::string> binary_;
  std::vector<std::string> source_;
};

}  // namespace coz
