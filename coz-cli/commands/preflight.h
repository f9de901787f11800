// Checks `coz run` makes before starting the program, so common mistakes get a clear one-line
// error instead of a silent empty profile.
#pragma once

#include <string>

#include "commands/run_options.h"

namespace coz::cli {

enum class ProgramKind { kDynamicElf, kStaticElf, kScript, kOther };

struct Program {
  std::string path;  // resolved path (absolute or as given with a '/')
  ProgramKind kind = ProgramKind::kOther;
};

// Each returns false and sets `error` (one line) when the check fails.
bool resolve_program(const std::string& name, Program* out, std::string* error);
bool check_preloadable(const Program& program, std::string* error);
bool check_debug_info(const Program& program, const RunConfig& config, std::string* error);
// The engine the runtime will choose (sample/sampler_choice.h) can sample here.
bool check_sampler(const RunConfig& config, std::string* error);
bool check_output_writable(const std::string& path, std::string* error);

// Exit statuses for failures before the program runs (shell conventions where they exist), besides
// kExitUsage (common/command_line.h).
inline constexpr int kExitNotFound = 127;
inline constexpr int kExitNotExecutable = 126;
inline constexpr int kExitCannotProfile = 1;

}  // namespace coz::cli
