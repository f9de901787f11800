// The source lines `coz plot` embeds around each profiled line, and which files it leaves out and
// why. A profile is untrusted and the page gets shared, so only files that look like source are
// read: a known source extension, no hidden path component, under the source root, not in
// /proc, /sys or /dev, a regular file of at most 8 MiB, and text.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "analysis/causal_profile.h"

namespace coz::cli {

inline constexpr int kSnippetContext = 4;                   // lines on each side of a profiled line
inline constexpr size_t kMaxSourceBytes = size_t{8} << 20;  // per file
inline constexpr size_t kMaxAllSourceBytes = size_t{256} << 20;  // over all files of one page
inline constexpr size_t kMaxSnippetLine = 1000;                  // bytes of one embedded line

struct LeftOut {
  std::string file;    // as the profile names it
  std::string reason;  // "hidden path", "not a source file", "not found", ...
};

struct Snippets {
  std::string json;  // {"file": {"12": "text", ...}, ...}
  std::vector<LeftOut> left_out;
  std::string left_out_json() const;  // [{"file": ..., "reason": ...}]
  // "source not shown for 2 files: a (why), b (why)"; "" for none. The names are the profile's:
  // print the line with tell() (common/command_line.h), which escapes them.
  std::string left_out_line() const;
};

// Reads one file the profile names into `text`; false with `reason` when it may not be read.
using SourceReader =
    std::function<bool(const std::string& file, std::string* text, std::string* reason)>;

// Reads files from disk under `root_dir` with the checks above (all but the text check, which
// source_snippets makes on whatever a reader returns).
SourceReader disk_sources(const std::string& root_dir);

// The lines around each line of the report's series, from the files `read` returns.
Snippets source_snippets(const analysis::Report& report, const SourceReader& read);

// Whether `name` (a path) ends in a source file extension (C, C++, Objective-C, CUDA, Rust, Go,
// Fortran, assembly, Zig, D, Swift, Nim, Ada, Pascal, Haskell, OCaml, Cython, yacc/lex, ...).
bool has_source_extension(const std::string& name);

}  // namespace coz::cli
