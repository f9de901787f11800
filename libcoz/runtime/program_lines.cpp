// The program's lines in scope (see program_lines.h).
#include "runtime/program_lines.h"

#include <memory>
#include <vector>

#include "base/platform.h"
#include "line/dwarf_on_demand.h"

namespace coz {

ProgramLines::ProgramLines(const RunConfig& config, const Reporter& reporter)
    : scope_(config.binary_scope, config.source_scope, config.include_system),
      debug_path_(config.debug_path),
      user_source_scope_(!config.source_scope.empty()),
      reporter_(reporter) {}

void ProgramLines::map_new_objects() {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t generation = loaded_objects_generation();
  if (mapped_ && generation == generation_) {
    return;
  }
  mapped_ = true;
  generation_ = generation;
  struct Found {
    ProgramLines* self;
    std::vector<LoadedObject> objects;
  } found{this, {}};
  for_each_loaded_object(
      [](const LoadedObject& o, void* ctx) {
        auto* f = static_cast<Found*>(ctx);
        if (f->self->scope_.includes_binary(o.path, o.is_main) &&
            !f->self->map_.contains(o.path, o.bias)) {
          f->objects.push_back(o);
        }
      },
      &found, !scope_.main_only());
  DwarfLines dwarf;  // elfutils, loaded for this batch if an object may have debug information
  for (const LoadedObject& o : found.objects) {
    uint64_t t0 = platform::monotonic_ns();
    std::unique_ptr<ObjectLines> lines = dwarf.load(o, scope_, &lines_, debug_path_);
    if (lines->status == DebugInfoStatus::kOk) {
      reporter_.say("mapped " + std::to_string(lines->lines_in_scope) + " lines in scope from " +
                        lines->debug_file + " in " + Reporter::ms(platform::monotonic_ns() - t0),
                    false);
    } else {
      reporter_.say(lines->message, false);
    }
    map_.add(std::move(lines));  // kept even without lines, so it is not read again
  }
}

std::string ProgramLines::no_lines_reason() const {
  size_t lines_in_scope = 0;
  std::string first_problem;
  map_.for_each_object([&](const ObjectLines& o) {
    lines_in_scope += o.lines_in_scope;
    if (o.status != DebugInfoStatus::kOk && first_problem.empty()) {
      first_problem = o.message;
    }
  });
  bool only_main =
      scope_.binary_patterns().size() == 1 && scope_.binary_patterns()[0] == kMainBinary;
  if (lines_in_scope != 0 || !only_main) {
    return "";
  }
  if (!first_problem.empty()) {
    return first_problem;
  }
  std::string scope = user_source_scope_ ? "as given" : "% but system files";
  return "no source line in scope has debug information (source scope: " + scope +
         "); compile with -g, or widen --source-scope or add --include-system";
}

}  // namespace coz
