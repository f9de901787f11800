// Pattern matching for binary and source scope (see scope.h).
#include "line/scope.h"

#include <cstdlib>

namespace coz {
namespace {

std::string_view base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool matches_any(const std::vector<std::string>& patterns, std::string_view path) {
  for (const std::string& p : patterns) {
    if (pattern_matches(p, path)) {
      return true;
    }
    if (p.find('/') == std::string::npos && pattern_matches(p, base_name(path))) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool pattern_matches(std::string_view pattern, std::string_view text) {
  // Iterative wildcard match with one backtrack point: linear for typical patterns.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '%' || pattern[p] == '*')) {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      p++;
      t++;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && (pattern[p] == '%' || pattern[p] == '*')) {
    p++;
  }
  return p == pattern.size();
}

Scope::Scope(std::vector<std::string> binary_patterns, std::vector<std::string> source_patterns,
             bool include_system)
    : Scope(std::move(binary_patterns), std::move(source_patterns), include_system,
            include_system ? std::vector<std::string>{} : default_system_roots()) {}

Scope::Scope(std::vector<std::string> binary_patterns, std::vector<std::string> source_patterns,
             bool include_system, std::vector<std::string> system_roots)
    : binary_(std::move(binary_patterns)),
      source_(std::move(source_patterns)),
      include_system_(include_system),
      system_roots_(std::move(system_roots)) {
  if (binary_.empty()) {
    binary_.emplace_back(kMainBinary);
  }
  if (source_.empty()) {
    source_.push_back("%");
  }
  for (const std::string& p : source_) {
    if (!p.empty() && p[0] != '%' && p[0] != '*') {
      explicit_.push_back(p);  // names its files: may bring system files into scope
    }
  }
}

std::vector<std::string> Scope::default_system_roots() {
  std::vector<std::string> roots = {
      "/usr/include/", "/usr/local/include/", "/usr/lib/", "/usr/local/lib/", "/lib/",
      "/rustc/",       "/rust/deps/"};
  auto add_dir = [&roots](std::string dir, const char* sub) {
    while (dir.size() > 1 && dir.back() == '/') {
      dir.pop_back();
    }
    if (!dir.empty() && dir[0] == '/') {
      roots.push_back(dir + sub);
    }
  };
  const char* home = getenv("HOME");
  const char* cargo = getenv("CARGO_HOME");
  const char* rustup = getenv("RUSTUP_HOME");
  for (const char* sub : {"/registry/", "/git/"}) {
    if (home && *home) {
      add_dir(std::string(home) + "/.cargo", sub);
    }
    if (cargo && *cargo) {
      add_dir(cargo, sub);
    }
  }
  if (home && *home) {
    add_dir(std::string(home) + "/.rustup", "/");
  }
  if (rustup && *rustup) {
    add_dir(rustup, "/");
  }
  return roots;
}

bool Scope::is_system_source(std::string_view file) const {
  for (const std::string& root : system_roots_) {
    if (file.compare(0, root.size(), root) == 0) {
      return true;
    }
  }
  return false;
}

bool Scope::includes_binary(std::string_view path, bool is_main) const {
  for (const std::string& p : binary_) {
    if (p == kMainBinary && is_main) {
      return true;
    }
  }
  return matches_any(binary_, path);
}

bool Scope::main_only() const {
  for (const std::string& p : binary_) {
    if (p != kMainBinary) {
      return false;
    }
  }
  return true;
}

bool Scope::includes_source(std::string_view file) const {
  if (base_name(file) == "coz.h") {
    return false;
  }
  if (!include_system_ && is_system_source(file)) {
    return matches_any(explicit_, file);
  }
  return matches_any(source_, file);
}

}  // namespace coz
