// Pattern matching for binary and source scope (see scope.h).
#include "line/scope.h"

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

Scope::Scope(std::vector<std::string> binary_patterns, std::vector<std::string> source_patterns)
    : binary_(std::move(binary_patterns)), source_(std::move(source_patterns)) {
  if (binary_.empty()) {
    binary_.push_back("MAIN");
  }
  if (source_.empty()) {
    source_.push_back("%");
  }
}

bool Scope::includes_binary(std::string_view path, bool is_main) const {
  for (const std::string& p : binary_) {
    if (p == "MAIN" && is_main) {
      return true;
    }
  }
  return matches_any(binary_, path);
}

bool Scope::includes_source(std::string_view file) const {
  if (base_name(file) == "coz.h") {
    return false;
  }
  return matches_any(source_, file);
}

std::vector<std::string> Scope::split_list(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string_view item = list.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (!item.empty()) {
      out.emplace_back(item);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace coz
