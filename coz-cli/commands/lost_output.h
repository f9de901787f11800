// What `coz run` says when the profile's path no longer names the file the runtime writes
// (output_watch.h), after saving that file's content.
#pragma once

#include <cstddef>
#include <string>

#include "commands/output_watch.h"

namespace coz::cli {

// Saves what the file held (OutputWatch::save_copy) and says so on stderr, naming the copy, or
// says why nothing could be saved; `written`: the run appended to it. The copy's path, or empty.
std::string report_lost_output(const OutputWatch& watch, const std::string& output, size_t run,
                               bool written);

}  // namespace coz::cli
