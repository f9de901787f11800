// Publishing address ranges, the loaded objects, and what needs no elfutils (see line_map.h);
// reading DWARF is dwarf_lines.cpp's.
#include "line/line_map.h"

#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>

#include "line/debug_precheck.h"

namespace coz {
const AddressRange* ObjectLines::lookup(uintptr_t addr) const {
  if (addr < lo || addr >= hi) {
    return nullptr;
  }
  auto it = std::upper_bound(ranges.begin(), ranges.end(), addr,
                             [](uintptr_t a, const AddressRange& r) { return a < r.lo; });
  if (it == ranges.begin()) {
    return nullptr;
  }
  --it;
  return addr < it->hi ? &*it : nullptr;
}

std::string debug_search_path(const std::string& debug_path) {
  return (debug_path.empty() ? "" : debug_path + ":") + ":.debug:/usr/lib/debug";
}

std::string missing_lines_message(const LoadedObject& object, const char* what) {
  return object.path + " has " + what + "; compile it with -g";
}

std::unique_ptr<ObjectLines> lines_without_debug_info(const LoadedObject& object,
                                                      const std::string& debug_path) {
  if (may_have_debug_info(object.path, debug_search_path(debug_path))) {
    return nullptr;
  }
  auto out = std::make_unique<ObjectLines>();
  out->object = object;
  out->status = DebugInfoStatus::kNoDebugInfo;  // without opening it with elfutils
  out->message = missing_lines_message(object, "no debug information");
  return out;
}

uint64_t loaded_objects_generation() {
  uint64_t generation = 0;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t size, void* data) -> int {
        if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
          *static_cast<uint64_t*>(data) = info->dlpi_adds + (info->dlpi_subs << 32);
        }
        return 1;  // the counters are global: the first object is enough
      },
      &generation);
  return generation;
}

void for_each_loaded_object(void (*visit)(const LoadedObject&, void*), void* context,
                            bool libraries) {
  struct Context {
    void (*visit)(const LoadedObject&, void*);
    void* context;
    bool first;
    bool libraries;
  } ctx = {visit, context, true, libraries};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) -> int {
        auto* c = static_cast<Context*>(data);
        LoadedObject object;
        object.bias = info->dlpi_addr;
        if (c->first) {  // the main executable comes first, with an empty name
          c->first = false;
          object.is_main = true;
          char exe[4096];
          ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
          if (n <= 0) {
            return 0;
          }
          object.path.assign(exe, static_cast<size_t>(n));
        } else if (!c->libraries) {
          return 1;  // stop: the main executable was all that was asked for
        } else {
          if (!info->dlpi_name || info->dlpi_name[0] != '/') {
            return 0;  // the vDSO and other objects with no file
          }
          char real[4096];
          object.path = realpath(info->dlpi_name, real) ? real : info->dlpi_name;
        }
        c->visit(object, c->context);
        return 0;
      },
      &ctx);
}

LineMap::~LineMap() {
  Node* n = head_.exchange(nullptr);
  while (n) {
    Node* next = n->next;
    delete n;
    n = next;
  }
}

void LineMap::add(std::unique_ptr<ObjectLines> object) {
  std::lock_guard<std::mutex> lock(add_mutex_);
  Node* node = new Node{std::move(object), head_.load(std::memory_order_relaxed)};
  head_.store(node, std::memory_order_release);
}

bool LineMap::contains(const std::string& path, uintptr_t bias) const {
  bool found = false;
  for_each_object([&](const ObjectLines& o) {
    found = found || (o.object.path == path && o.object.bias == bias);
  });
  return found;
}

const AddressRange* LineMap::lookup(uintptr_t addr) const {
  for (const Node* n = head_.load(std::memory_order_acquire); n; n = n->next) {
    if (const AddressRange* r = n->object->lookup(addr)) {
      return r;
    }
  }
  return nullptr;
}

}  // namespace coz
