// The runtime's path as LD_PRELOAD can hold it. The loader splits LD_PRELOAD at spaces and
// colons and expands $ORIGIN, $LIB and $PLATFORM in it, so a runtime installed under a path with
// any of those is reached through a link in a private temporary directory, removed at the end,
// beside a link to the module the runtime loads from its own directory (libcoz-dwarf.so).
#pragma once

#include <string>

namespace coz::cli {

class PreloadPath {
 public:
  PreloadPath() = default;
  ~PreloadPath() { remove(); }
  PreloadPath(const PreloadPath&) = delete;
  PreloadPath& operator=(const PreloadPath&) = delete;

  // The path to put in LD_PRELOAD for `runtime`: itself, or a link to it. False with `error`
  // set (one line, with what to do) when no link can be made.
  bool prepare(const std::string& runtime, std::string* error);
  const std::string& path() const { return path_; }
  // Removes the link and its directory, if any.
  void remove();

  // True when the loader would split or expand `path` in LD_PRELOAD.
  static bool needs_link(const std::string& path);

 private:
  std::string path_;
  std::string link_dir_;  // the private directory holding the link, or empty
};

}  // namespace coz::cli
