// Interning of source files and lines (see line_table.h).
#include "line/line_table.h"

namespace coz {

uint64_t SourceLine::key_of(std::string_view file, uint32_t line) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](char c) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  };
  for (char c : file) {
    mix(c);
  }
  mix(':');
  std::string digits = std::to_string(line);
  for (char c : digits) {
    mix(c);
  }
  return h != 0 ? h : 1;
}

const std::string* LineTable::intern_file(std::string_view file) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = file_index_.find(file);
  if (it != file_index_.end()) {
    return it->second;
  }
  const std::string* stored = &files_.emplace_back(file);
  file_index_.emplace(std::string_view(*stored), stored);
  file_ids_.emplace(stored, static_cast<uint32_t>(files_.size() - 1));
  return stored;
}

SourceLine* LineTable::intern_line(const std::string* file, uint32_t line) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t key = (static_cast<uint64_t>(file_ids_.at(file)) << 32) | line;
  if (SourceLine* found = line_index_.find(key)) {
    return found;
  }
  SourceLine* stored = &lines_.emplace_back(file, line);
  line_index_.put(key, stored);
  return stored;
}

namespace {
// `f` is `file`, or ends with "/" + `file`.
bool names(const std::string& f, std::string_view file) {
  return f == file ||
         (f.size() > file.size() && f.compare(f.size() - file.size(), file.size(), file) == 0 &&
          f[f.size() - file.size() - 1] == '/');
}
}  // namespace

bool LineTable::has_file(std::string_view file) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& f : files_) {
    if (names(f, file)) {
      return true;
    }
  }
  return false;
}

SourceLine* LineTable::find(std::string_view file, uint32_t line, bool* ambiguous) const {
  std::lock_guard<std::mutex> lock(mutex_);
  SourceLine* found = nullptr;
  if (ambiguous) {
    *ambiguous = false;
  }
  for (const std::string& f : files_) {
    if (!names(f, file)) {
      continue;
    }
    SourceLine* it = line_index_.find((static_cast<uint64_t>(file_ids_.at(&f)) << 32) | line);
    if (it == nullptr) {
      continue;
    }
    if (found && ambiguous) {
      *ambiguous = true;
      return nullptr;
    }
    found = it;
  }
  return found;
}

void LineTable::for_each(const std::function<void(const SourceLine&)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const SourceLine& l : lines_) {
    visit(l);
  }
}

size_t LineTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_.size();
}

void LineTable::clear_counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (SourceLine& l : lines_) {  // written only where counted: a forked child copies no more
    if (l.samples.load(std::memory_order_relaxed) != 0) {  // pages than it must
      l.samples.store(0, std::memory_order_relaxed);
    }
    if (l.blocked.load(std::memory_order_relaxed) != 0) {
      l.blocked.store(0, std::memory_order_relaxed);
    }
  }
}

}  // namespace coz
