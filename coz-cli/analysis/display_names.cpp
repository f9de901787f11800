// Shortest unambiguous path suffixes for the report's files (see display_names.h).
#include "analysis/display_names.h"

#include <string_view>

namespace coz::analysis {
namespace {

// The part of `path` after its k-th '/' from the end, or the whole path when it has fewer.
std::string_view suffix(std::string_view path, size_t k) {
  size_t end = path.size();
  for (size_t i = 0; i < k; i++) {
    size_t slash = end == 0 ? std::string_view::npos : path.rfind('/', end - 1);
    if (slash == std::string_view::npos) {
      return path;
    }
    end = slash;
  }
  return path.substr(end + 1);
}

}  // namespace

DisplayNames display_names(const std::vector<std::string>& files) {
  DisplayNames names;
  std::vector<std::string_view> open;  // distinct paths not yet named
  for (const std::string& f : files) {
    if (names.emplace(f, std::string()).second) {
      open.push_back(f);
    }
  }
  std::vector<std::string_view> all = open;
  // Lengthen every unnamed path's suffix by one component per round until no other path shares
  // it; each round is one pass over all paths, so the cost is paths x depth of the deepest.
  for (size_t k = 1; !open.empty(); k++) {
    std::unordered_map<std::string_view, size_t> count;
    for (std::string_view p : all) {
      count[suffix(p, k)]++;
    }
    std::vector<std::string_view> still;
    for (std::string_view p : open) {
      std::string_view s = suffix(p, k);
      if (count[s] == 1 || s.size() == p.size()) {
        names[std::string(p)] = std::string(s);
      } else {
        still.push_back(p);
      }
    }
    open.swap(still);
  }
  return names;
}

DisplayNames display_locations(const std::vector<Location>& locations) {
  std::vector<std::string> files;
  for (const Location& l : locations) {
    if (l.is_file_line()) {
      files.push_back(l.file);
    }
  }
  DisplayNames names = display_names(files);
  DisplayNames out;
  for (const Location& l : locations) {
    // The file's name, then ":N" as the profile wrote it.
    out[l.name] = l.is_file_line() ? names[l.file] + l.name.substr(l.file.size()) : l.name;
  }
  return out;
}

}  // namespace coz::analysis
