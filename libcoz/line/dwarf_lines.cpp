// Reading DWARF line tables with elfutils (see line_map.h): the one file of the line map, with
// cu_ranges.cpp, that calls libdw. The CLI links it; the runtime loads it only in a process with
// an object that may have debug information (dwarf_on_demand.h).
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "line/cu_ranges.h"
#include "line/line_map.h"

namespace coz {

namespace {

// Finds a separate debug file on this machine only: by build id under each absolute directory
// of the search path (.build-id/xx/rest.debug), then by .gnu_debuglink next to the object, in its
// .debug/ subdirectory, and under each absolute directory. Unlike elfutils' standard callback it
// never asks a debuginfod server: a profiler must not reach for the network at start-up.
int find_local_debuginfo(Dwfl_Module* module, void** userdata, const char* modname, Dwarf_Addr base,
                         const char* file_name, const char* debuglink, GElf_Word crc,
                         char** debuginfo_file_name) {
  int fd = dwfl_build_id_find_debuginfo(module, userdata, modname, base, file_name, debuglink, crc,
                                        debuginfo_file_name);
  if (fd >= 0 || !debuglink || !file_name) {
    return fd;
  }
  std::string file(file_name);
  std::string dir = file.substr(0, file.rfind('/') == std::string::npos ? 0 : file.rfind('/'));
  std::vector<std::string> candidates = {dir + "/" + debuglink, dir + "/.debug/" + debuglink};
  const char* search = static_cast<const char*>(*userdata);  // set by DebugSession
  for (std::string_view rest(search ? search : ""); !rest.empty();) {
    size_t colon = rest.find(':');
    std::string_view root = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (!root.empty() && root[0] == '/') {
      candidates.push_back(std::string(root) + dir + "/" + debuglink);
    }
  }
  for (const std::string& c : candidates) {
    if (c == file) {
      continue;
    }
    fd = open(c.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      *debuginfo_file_name = strdup(c.c_str());
      return fd;
    }
  }
  return -1;
}

// An object opened with elfutils, with its DWARF found (or the reason it was not).
struct DebugSession {
  std::string search;  // elfutils keeps a pointer to the search path for the Dwfl's lifetime
  char* search_ptr = nullptr;
  Dwfl_Callbacks callbacks = {};
  std::unique_ptr<Dwfl, void (*)(Dwfl*)> dwfl{nullptr, dwfl_end};
  Dwfl_Module* module = nullptr;
  Elf* elf = nullptr;
  GElf_Addr elf_bias = 0;  // runtime address = ELF address + elf_bias
  Dwarf* dwarf = nullptr;
  Dwarf_Addr dwarf_bias = 0;  // runtime address = DWARF address + dwarf_bias
  DebugInfoStatus status = DebugInfoStatus::kCannotOpen;
  std::string message;
  std::string debug_file;

  DebugSession(const LoadedObject& object, const std::string& debug_path) {
    search = debug_search_path(debug_path);
    search_ptr = search.data();
    callbacks.find_elf = dwfl_build_id_find_elf;
    callbacks.find_debuginfo = find_local_debuginfo;
    callbacks.section_address = dwfl_offline_section_address;
    callbacks.debuginfo_path = &search_ptr;
    dwfl.reset(dwfl_begin(&callbacks));
    if (!dwfl) {
      message = std::string("elfutils: ") + dwfl_errmsg(-1);
      return;
    }
    dwfl_report_begin(dwfl.get());
    module = dwfl_report_elf(dwfl.get(), object.path.c_str(), object.path.c_str(), -1, object.bias,
                             true);
    dwfl_report_end(dwfl.get(), nullptr, nullptr);
    if (module) {
      void** userdata = nullptr;
      dwfl_module_info(module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
      *userdata = search.data();  // for find_local_debuginfo
    }
    elf = module ? dwfl_module_getelf(module, &elf_bias) : nullptr;
    if (!elf) {
      message = object.path + " is not a readable ELF file";
      return;
    }
    dwarf = dwfl_module_getdwarf(module, &dwarf_bias);
    if (!dwarf) {
      set_missing(object, "no debug information");
      return;
    }
    const char* file = nullptr;
    dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &file);
    debug_file = file ? file : object.path;
    status = DebugInfoStatus::kOk;
  }

  // Records why no line tables were found: zstd that libelf cannot read, or none at all.
  void set_missing(const LoadedObject& object, const char* what) {
    if (has_zstd_debug_sections(elf)) {
      status = DebugInfoStatus::kUnsupported;
      message = object.path +
                " has zstd-compressed debug sections, which this system's libelf cannot read;"
                " rebuild with -gz=zlib or -gz=none";
    } else {
      status = DebugInfoStatus::kNoDebugInfo;
      message = missing_lines_message(object, what);
    }
  }

  // Calls visit(cudie) for each compilation unit; stops early when visit returns false.
  template <typename F>
  void for_each_cu(F&& visit) {
    Dwarf_CU* cu = nullptr;
    Dwarf_Die cudie, subdie;
    uint8_t unit_type = 0;
    while (dwarf_get_units(dwarf, cu, &cu, nullptr, &unit_type, &cudie, &subdie) == 0) {
      if ((unit_type == DW_UT_compile || unit_type == DW_UT_partial ||
           unit_type == DW_UT_skeleton) &&
          !visit(&cudie)) {
        return;
      }
    }
  }
};

}  // namespace

DebugProbe probe_debug_info(const LoadedObject& object, const Scope& scope,
                            const std::string& debug_path) {
  DebugSession session(object, debug_path);
  DebugProbe probe{session.status, session.message, false};
  if (session.status != DebugInfoStatus::kOk) {
    return probe;
  }
  bool any_lines = false;
  session.for_each_cu([&](Dwarf_Die* cudie) {
    Dwarf_Files* files = nullptr;
    size_t count = 0;
    if (dwarf_getsrcfiles(cudie, &files, &count) != 0) {
      return true;
    }
    any_lines = true;
    for (size_t i = 0; i < count && !probe.source_in_scope; i++) {
      const char* name = dwarf_filesrc(files, i, nullptr, nullptr);
      probe.source_in_scope = name && scope.includes_source(source_name(name, comp_dir_of(cudie)));
    }
    return !probe.source_in_scope;
  });
  if (!any_lines) {
    session.set_missing(object, "no line tables");
    probe.status = session.status;
    probe.message = session.message;
  }
  return probe;
}

std::unique_ptr<ObjectLines> load_object_lines(const LoadedObject& object, const Scope& scope,
                                               LineTable* table, const std::string& debug_path,
                                               size_t rows_per_session) {
  if (std::unique_ptr<ObjectLines> none = lines_without_debug_info(object, debug_path)) {
    return none;
  }
  auto out = std::make_unique<ObjectLines>();
  out->object = object;
  auto session = std::make_unique<DebugSession>(object, debug_path);
  out->status = session->status;
  out->message = session->message;
  if (session->status != DebugInfoStatus::kOk) {
    return out;
  }
  out->debug_file = session->debug_file;

  CuRanges collector(scope, table, session->elf, session->module, session->elf_bias,
                     static_cast<uintptr_t>(session->dwarf_bias));
  // Sessions of about rows_per_session rows (line_map.h): a program with 57 MB of DWARF held
  // 119 MB at once in one session, 39 MB in sessions of 2^18 rows.
  const bool in_sessions = !has_compressed_debug_sections(dwarf_getelf(session->dwarf));
  std::vector<AddressRange> kept;
  size_t units_done = 0, units_with_lines = 0;
  for (bool more = true; more;) {
    size_t unit = 0, rows = 0;
    more = false;
    session->for_each_cu([&](Dwarf_Die* cudie) {
      if (unit++ < units_done) {
        return true;  // read in an earlier session
      }
      if (in_sessions && rows >= rows_per_session) {
        more = true;
        return false;
      }
      units_done++;
      Dwarf_Lines* lines = nullptr;
      size_t count = 0;
      if (dwarf_getsrclines(cudie, &lines, &count) == 0) {
        units_with_lines++;
        rows += count;
        collector.add_cu(cudie, lines, count, &kept);
      }
      return true;
    });
    if (more) {
      collector.forget_names();
      session.reset();  // first: its memory goes before the next one takes its own
      session = std::make_unique<DebugSession>(object, debug_path);
      more = session->status == DebugInfoStatus::kOk;
    }
  }
  if (units_with_lines == 0) {
    session->set_missing(object, "no line tables");
    out->status = session->status;
    out->message = session->message;
    return out;
  }

  // Overlaps come from duplicated sequences (COMDAT code kept once but described by every unit
  // that had a copy): at equal starts the tighter range wins, then the first.
  std::stable_sort(kept.begin(), kept.end(), [](const AddressRange& a, const AddressRange& b) {
    return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
  });
  // In place: each range read writes at most one.
  size_t kept_count = 0;
  for (const AddressRange& r : kept) {
    if (kept_count > 0 && r.lo < kept[kept_count - 1].hi) {
      if (r.hi > kept[kept_count - 1].hi) {
        AddressRange rest{kept[kept_count - 1].hi, r.hi, r.line};
        kept[kept_count++] = rest;
      }
      continue;
    }
    kept[kept_count++] = r;
  }
  kept.resize(kept_count);
  kept.shrink_to_fit();
  std::vector<AddressRange>& final_ranges = out->ranges;
  final_ranges = std::move(kept);
  if (!final_ranges.empty()) {
    out->lo = final_ranges.front().lo;
    out->hi = final_ranges.back().hi;
  }
  out->lines_in_scope = collector.distinct_lines();
  out->status = DebugInfoStatus::kOk;
  return out;
}

}  // namespace coz
