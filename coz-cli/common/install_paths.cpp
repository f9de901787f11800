// Where the installed parts are, relative to the `coz` executable (see install_paths.h).
#include "common/install_paths.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "output/html_page.h"

#ifndef COZ_BIN_TO_LIB
#define COZ_BIN_TO_LIB "../lib"
#endif
#ifndef COZ_BIN_TO_VIEWER
#define COZ_BIN_TO_VIEWER "../share/coz-amp/viewer"
#endif

namespace coz::cli {
namespace {

bool slurp(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// The directory of the running `coz` executable, or empty.
std::string executable_dir() {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    return "";
  }
  std::string path(exe, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

}  // namespace

namespace {

std::string search_runtime(std::string* looked_in) {
  if (const char* forced = getenv("COZ_RUNTIME")) {
    *looked_in = forced;
    return access(forced, R_OK) == 0 ? forced : "";
  }
  std::string dir = executable_dir();
  if (dir.empty()) {
    return "";
  }
  for (const std::string& candidate :
       {dir + "/" COZ_BIN_TO_LIB "/libcoz.so", dir + "/../lib/libcoz.so", dir + "/libcoz.so"}) {
    *looked_in += (looked_in->empty() ? "" : ", ") + candidate;
    if (access(candidate.c_str(), R_OK) == 0) {
      char real[PATH_MAX];
      return realpath(candidate.c_str(), real) ? real : candidate;
    }
  }
  return "";
}

std::string search_viewer(std::string* looked_in) {
  if (const char* forced = getenv("COZ_VIEWER_DIR")) {
    *looked_in = forced;
    return forced;
  }
  std::string dir = executable_dir();
  if (dir.empty()) {
    return "";
  }
  for (const std::string& candidate :
       {dir + "/" COZ_BIN_TO_VIEWER, dir + "/../share/coz-amp/viewer"}) {
    *looked_in += (looked_in->empty() ? "" : ", ") + candidate;
    if (access((candidate + "/index.html").c_str(), R_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

}  // namespace

std::string find_runtime(std::string* error) {
  std::string looked_in;
  std::string found = search_runtime(&looked_in);
  if (found.empty()) {
    *error = "cannot find the runtime libcoz.so (looked in " + looked_in +
             "); reinstall, or set COZ_RUNTIME to its path";
  }
  return found;
}

std::string find_viewer(std::string* error) {
  std::string looked_in;
  std::string found = search_viewer(&looked_in);
  if (found.empty()) {
    *error = "cannot find the viewer (looked in " + looked_in +
             "); rebuild, reinstall, or set COZ_VIEWER_DIR";
  }
  return found;
}

bool load_viewer(const std::string& dir, output::ViewerFiles* viewer, std::string* error) {
  // viewer.js is the bundle of viewer/src (the profile reader's script included).
  if (!slurp(dir + "/index.html", &viewer->index_html) ||
      !slurp(dir + "/viewer.css", &viewer->style) || !slurp(dir + "/viewer.js", &viewer->app)) {
    *error = "the viewer in " + dir + " is incomplete; rebuild (cmake --build build) or reinstall";
    return false;
  }
  for (const char* name : {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"}) {
    viewer->libs.emplace_back();
    if (!slurp(dir + "/" + name, &viewer->libs.back())) {
      *error = std::string("the viewer's ") + name + " is missing from " + dir +
               ": run `npm ci` in viewer/ (scripts/deps.sh does), then rebuild";
      return false;
    }
  }
  // coz compare's page: a viewer installed before it has none (coz compare --html says so).
  if (!slurp(dir + "/compare.html", &viewer->compare_html) ||
      !slurp(dir + "/compare.js", &viewer->compare_app)) {
    viewer->compare_html.clear();
    viewer->compare_app.clear();
  }
  // A build without the WebAssembly toolchain has no reader (COZ_PAGE_READER): its pages show
  // their own profile and open JSON reports, and say so when asked to open a profile.
  if (!slurp(dir + "/coz-reader.wasm", &viewer->reader_wasm)) {
    viewer->reader_wasm.clear();
  }
  return true;
}

std::string page_nonce() {
  unsigned char bytes[16];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    for (unsigned char& b : bytes) {
      b = static_cast<unsigned char>(rand());
    }
  }
  std::string out;
  char hex[3];
  for (unsigned char b : bytes) {
    snprintf(hex, sizeof hex, "%02x", b);
    out += hex;
  }
  return out;
}

}  // namespace coz::cli
