// The parts `coz` finds next to itself: the runtime it preloads and the viewer it inlines, in the
// build tree or an install tree (COZ_RUNTIME and COZ_VIEWER_DIR override both).
#pragma once

#include <string>

namespace coz::output {
struct ViewerFiles;
}

namespace coz::cli {

// The runtime library, or empty with `error` (one line: where it looked and what to do).
std::string find_runtime(std::string* error);

// The viewer's directory (it holds index.html), or empty with `error` (likewise).
std::string find_viewer(std::string* error);

// Reads the viewer's files from `dir`. False with a one-line `error` that says how to fix it.
bool load_viewer(const std::string& dir, output::ViewerFiles* viewer, std::string* error);

// A fresh nonce for a page's scripts (its Content-Security-Policy): 32 hex digits.
std::string page_nonce();

}  // namespace coz::cli
