// Short, unambiguous names for the files and lines a report shows: the shortest path suffix, in
// whole components, that no other shown file shares (Rust's many `mod.rs` become `ptr/mod.rs` and
// `foo/mod.rs`; a base name no other file has stays a base name). Pure functions.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/location.h"

namespace coz::analysis {

// From each path (or location) to the name it is shown by.
using DisplayNames = std::unordered_map<std::string, std::string>;

// For each distinct path in `files`, the shortest suffix starting after a '/' (or the whole path)
// that is the same length-in-components suffix of no other distinct path; the whole path when
// none is shorter. Distinct paths get distinct names. Duplicates in `files` are allowed.
DisplayNames display_names(const std::vector<std::string>& files);

// The same for `file:line` locations, by their names: "a/mod.rs:638" for "/x/a/mod.rs:638", files
// told apart among all `locations`. A location that is no `file:line` is its own display name.
DisplayNames display_locations(const std::vector<Location>& locations);

}  // namespace coz::analysis
