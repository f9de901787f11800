// Profiling scope: which loaded objects (binary scope) and which source files (source scope) the
// profiler may select lines from. Patterns use `%` (Coz's wildcard) or `*`, both matching any run
// of characters including '/'. A pattern without '/' is matched against the base name as well as
// the full path, so `-s main.c` works. The binary-scope keyword MAIN names the main executable.
// System and toolchain files (system_roots(): /usr/include, /usr/lib, /rustc/, ~/.cargo/registry,
// ...) are out of source scope unless include_system is set or a pattern that starts with a
// literal character (`/usr/include/%`, `stl_algo.h`; not `%` or `*.h`) matches them.
// coz.h is never in source scope. Immutable after construction; safe to share between threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coz {

// The binary-scope keyword for the main executable.
inline constexpr std::string_view kMainBinary = "MAIN";

// True when `text` matches `pattern` in full.
bool pattern_matches(std::string_view pattern, std::string_view text);

class Scope {
 public:
  // Empty lists mean the defaults: binary scope MAIN, source scope every non-system file.
  // `system_roots` are directory prefixes (ending in '/'); by default default_system_roots().
  Scope(std::vector<std::string> binary_patterns, std::vector<std::string> source_patterns,
        bool include_system = false);
  Scope(std::vector<std::string> binary_patterns, std::vector<std::string> source_patterns,
        bool include_system, std::vector<std::string> system_roots);
  Scope() : Scope({}, {}) {}

  bool includes_binary(std::string_view path, bool is_main) const;
  // Whether the binary scope names the main executable alone (MAIN, the default).
  bool main_only() const;
  bool includes_source(std::string_view file) const;
  // True when `file` lies under a system or toolchain directory.
  bool is_system_source(std::string_view file) const;

  const std::vector<std::string>& binary_patterns() const { return binary_; }
  const std::vector<std::string>& source_patterns() const { return source_; }
  const std::vector<std::string>& system_roots() const { return system_roots_; }

  // System and toolchain source directories: /usr/include/, /usr/local/include/, /usr/lib/ (the
  // compiler's own headers: /usr/lib/gcc/..., /usr/lib/llvm-N/...), /usr/local/lib/, /lib/,
  // /rustc/ (Rust's standard library), /rust/deps/ (the crates it vendors), and Cargo's and
  // rustup's homes ($CARGO_HOME/registry, $CARGO_HOME/git, $RUSTUP_HOME; by default under
  // $HOME). Reads the environment.
  static std::vector<std::string> default_system_roots();

 private:
  std::vector<std::string> binary_;
  std::vector<std::string> source_;
  std::vector<std::string> explicit_;  // source patterns that may name system files
  bool include_system_;
  std::vector<std::string> system_roots_;
};

}  // namespace coz
