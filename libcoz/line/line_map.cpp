// Reading DWARF line tables with elfutils and publishing address ranges (see line_map.h).
#include "line/line_map.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace coz {
namespace {

constexpr uint32_t kElfCompressZstd = 2;  // ELFCOMPRESS_ZSTD, absent from older elf.h

struct ExecSegment {
  uintptr_t lo, hi;
};

// Executable PT_LOAD segments at runtime addresses: line ranges outside them belong to
// discarded code.
std::vector<ExecSegment> exec_segments(Elf* elf, uintptr_t bias) {
  std::vector<ExecSegment> out;
  size_t n = 0;
  if (elf_getphdrnum(elf, &n) != 0) {
    return out;
  }
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD &&
        (ph.p_flags & PF_X)) {
      out.push_back({ph.p_vaddr + bias, ph.p_vaddr + ph.p_memsz + bias});
    }
  }
  return out;
}

// Function symbols at runtime addresses, sorted. Line rows never run past the end of the function
// they start in: libdw sorts rows by address across sequences, so the row that follows a
// sequence's last row in its table may belong to code far away.
std::vector<ExecSegment> function_bounds(Dwfl_Module* module, Elf* elf, uintptr_t elf_bias) {
  std::vector<ExecSegment> out;
  auto add = [&out](const GElf_Sym& sym, uintptr_t addr) {
    if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size > 0 && sym.st_shndx != SHN_UNDEF) {
      out.push_back({addr, addr + static_cast<uintptr_t>(sym.st_size)});
    }
  };
  // Fast path: the object's own .symtab, read directly.
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && out.empty(); scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    Elf_Data* data = nullptr;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0 ||
        !(data = elf_getdata(scn, nullptr))) {
      continue;
    }
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 1; i < count; i++) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym)) {
        add(sym, static_cast<uintptr_t>(sym.st_value) + elf_bias);
      }
    }
  }
  if (out.empty()) {  // stripped: elfutils finds the symbols in the debug file or .dynsym
    int count = dwfl_module_getsymtab(module);
    for (int i = 1; i < count; i++) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      if (dwfl_module_getsym_info(module, i, &sym, &addr, nullptr, nullptr, nullptr)) {
        add(sym, static_cast<uintptr_t>(addr));
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ExecSegment& a, const ExecSegment& b) { return a.lo < b.lo; });
  return out;
}

// True if `elf` has debug sections compressed with zstd (which libelf may not read).
bool has_zstd_debug_sections(Elf* elf) {
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    return false;
  }
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED)) {
      continue;
    }
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    Elf_Data* raw = elf_rawdata(scn, nullptr);
    if (!name || strncmp(name, ".debug", 6) != 0 || !raw || raw->d_size < sizeof(uint32_t)) {
      continue;
    }
    uint32_t type;
    memcpy(&type, raw->d_buf, sizeof type);  // ch_type is the first word of Elf32/64_Chdr
    if (type == kElfCompressZstd) {
      return true;
    }
  }
  return false;
}

// Collapses "/./" and "dir/../" so the same file always has the same name.
std::string normalize_path(const char* raw) {
  std::string_view in(raw);
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= in.size()) {
    size_t slash = in.find('/', i);
    std::string_view part = in.substr(i, slash == std::string_view::npos ? slash : slash - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != ".." && !parts.back().empty()) {
        parts.pop_back();
      } else {
        parts.push_back(part);
      }
    } else if (part != "." && !(part.empty() && !parts.empty())) {
      parts.push_back(part);
    }
    if (slash == std::string_view::npos) {
      break;
    }
    i = slash + 1;
  }
  std::string out;
  for (size_t k = 0; k < parts.size(); k++) {
    if (k > 0) {
      out.push_back('/');
    }
    out.append(parts[k]);
  }
  return out.empty() ? std::string(in) : out;
}

// The inlined calls of one compilation unit made from lines in scope, read by walking its DIE
// tree once: each DW_TAG_inlined_subroutine whose call site (DW_AT_call_file, DW_AT_call_line) is
// in scope, and its code as non-overlapping segments (DWARF addresses) naming the innermost such
// call that holds them. Lets a line-table row in a file out of scope (std::sort's body in
// stl_algo.h) be credited to the in-scope line that the code was inlined into (main.cpp:24).
// The walk skips what cannot matter, since the library's own inline frames are most of the DIEs:
// functions without rows both in and out of scope, inlined calls made from files out of scope,
// and inlined calls with no row in scope inside (library functions, such as std::sort itself).
// So user code inlined into library code inlined into user code (a comparator's callees inside
// an inlined std::sort) is credited to the outer user line (the sort call).
class InlineCalls {
 public:
  struct Call {
    uint32_t file;  // index into the CU's file table
    uint32_t line;
  };
  struct Segment {
    Dwarf_Addr lo, hi;
    int32_t call;  // innermost in-scope inlined call holding [lo, hi)
  };

  // Reads `cudie`'s inlined calls made from files that `file_in_scope` (by index in the CU's
  // file table) accepts, in the functions whose code has rows both in and out of scope (sorted
  // DWARF addresses of the rows' starts): a function with none out of scope has nothing to
  // credit, and one with none in scope (an out-of-line library template) has no user code inlined
  // into it to take the credit.
  template <typename InScope>
  void read(Dwarf_Die* cudie, const std::vector<Dwarf_Addr>* in_scope,
            const std::vector<Dwarf_Addr>* out_of_scope, InScope&& file_in_scope) {
    calls_.clear();
    segments_.clear();
    raw_.clear();
    in_scope_ = in_scope;
    out_of_scope_ = out_of_scope;
    walk(cudie, 0, &raw_, file_in_scope);
    flatten(&raw_);
  }

  const std::vector<Call>& calls() const { return calls_; }
  const std::vector<Segment>& segments() const { return segments_; }

  // The first segment that ends after `addr`, or segments().end().
  std::vector<Segment>::const_iterator first_after(Dwarf_Addr addr) const {
    return std::upper_bound(segments_.begin(), segments_.end(), addr,
                            [](Dwarf_Addr a, const Segment& s) { return a < s.hi; });
  }

 private:
  struct Raw {
    Dwarf_Addr lo, hi;
    int32_t call;
    uint32_t depth;
  };

  // Visits only the DIEs that can hold code: namespaces, concrete functions, lexical blocks
  // and inlined calls. Types are skipped whole (libdw jumps over them with DW_AT_sibling).
  template <typename InScope>
  void walk(Dwarf_Die* parent, uint32_t depth, std::vector<Raw>* raw, InScope& file_in_scope) {
    Dwarf_Die child;
    if (depth > 256 || dwarf_child(parent, &child) != 0) {
      return;
    }
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_inlined_subroutine: {
          Dwarf_Attribute attr;
          Dwarf_Word file = 0, line = 0;
          if (dwarf_formudata(dwarf_attr(&child, DW_AT_call_file, &attr), &file) != 0 ||
              dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &attr), &line) != 0 ||
              line == 0 || line > INT32_MAX || file > UINT32_MAX ||
              !file_in_scope(static_cast<uint32_t>(file))) {
            break;  // made from library code: its addresses belong to the enclosing call
          }
          auto id = static_cast<int32_t>(calls_.size());
          calls_.push_back({static_cast<uint32_t>(file), static_cast<uint32_t>(line)});
          Dwarf_Addr base = 0, start = 0, end = 0;
          bool user_code = false;  // rows in scope inside: the inlined function is the user's
          for (ptrdiff_t off = 0; (off = dwarf_ranges(&child, off, &base, &start, &end)) > 0;) {
            if (end > start) {
              raw->push_back({start, end, id, depth + 1});
              user_code = user_code || any_within(*in_scope_, start, end);
            }
          }
          if (user_code) {  // a library function's body holds no call made from user code
            walk(&child, depth + 1, raw, file_in_scope);
          }
          break;
        }
        case DW_TAG_subprogram:
          // Abstract instances (DW_AT_inline) and declarations have no code.
          if (!dwarf_hasattr(&child, DW_AT_inline) && worth_reading(&child)) {
            walk(&child, 0, raw, file_in_scope);
          }
          break;
        case DW_TAG_lexical_block:
          walk(&child, depth, raw, file_in_scope);
          break;
        case DW_TAG_namespace:
          walk(&child, 0, raw, file_in_scope);
          break;
        default:
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  static bool any_within(const std::vector<Dwarf_Addr>& sorted, Dwarf_Addr lo, Dwarf_Addr hi) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), lo);
    return it != sorted.end() && *it < hi;
  }

  bool worth_reading(Dwarf_Die* function) const {
    Dwarf_Addr base = 0, start = 0, end = 0;
    bool in = false, out = false;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(function, off, &base, &start, &end)) > 0;) {
      in = in || any_within(*in_scope_, start, end);
      out = out || any_within(*out_of_scope_, start, end);
      if (in && out) {
        return true;
      }
    }
    return false;
  }

  // Inlined ranges nest: sweeping them by start, outer first, with a stack of the open ones
  // gives each stretch of code to the innermost open range.
  void flatten(std::vector<Raw>* raw) {
    std::sort(raw->begin(), raw->end(), [](const Raw& a, const Raw& b) {
      if (a.lo != b.lo) {
        return a.lo < b.lo;
      }
      return a.depth != b.depth ? a.depth < b.depth : a.hi > b.hi;
    });
    std::vector<const Raw*> open;
    Dwarf_Addr pos = 0;
    auto emit = [this](Dwarf_Addr lo, Dwarf_Addr hi, int32_t call) {
      if (hi <= lo) {
        return;
      }
      if (!segments_.empty() && segments_.back().call == call && segments_.back().hi == lo) {
        segments_.back().hi = hi;
      } else {
        segments_.push_back({lo, hi, call});
      }
    };
    auto close_until = [&](Dwarf_Addr limit) {
      while (!open.empty() && open.back()->hi <= limit) {
        emit(pos, open.back()->hi, open.back()->call);
        pos = std::max(pos, open.back()->hi);
        open.pop_back();
      }
    };
    for (const Raw& r : *raw) {
      close_until(r.lo);
      if (!open.empty()) {
        emit(pos, r.lo, open.back()->call);
      }
      pos = std::max(pos, r.lo);
      open.push_back(&r);
    }
    close_until(UINT64_MAX);
  }

  std::vector<Call> calls_;
  std::vector<Segment> segments_;  // sorted, non-overlapping
  std::vector<Raw> raw_;           // scratch, kept to reuse its memory
  const std::vector<Dwarf_Addr>* in_scope_ = nullptr;
  const std::vector<Dwarf_Addr>* out_of_scope_ = nullptr;
};

// A source file's name as the profile gives it: a relative name (rustc writes them, with a
// relative directory that libdw does not join to the unit's) is taken from the unit's
// DW_AT_comp_dir, and "/./" and "dir/../" are collapsed.
std::string source_name(const char* src, const char* comp_dir) {
  if (src[0] != '/' && comp_dir && comp_dir[0] == '/') {
    return normalize_path((std::string(comp_dir) + "/" + src).c_str());
  }
  return normalize_path(src);
}

const char* comp_dir_of(Dwarf_Die* cudie) {
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
}

// Turns CU line tables into in-scope ranges at runtime addresses. libdw keeps each sequence's
// rows together, in address order, ending with an end_sequence row. A sequence whose first
// address is outside every executable segment belongs to code the linker discarded (its
// addresses are 0 or a tombstone), so all of it is dropped; ranges are clipped to their segment.
class RangeCollector {
 public:
  RangeCollector(const Scope& scope, LineTable* table, std::vector<ExecSegment> segments,
                 std::vector<ExecSegment> functions, uintptr_t bias)
      : scope_(scope),
        table_(table),
        segments_(std::move(segments)),
        functions_(std::move(functions)),
        bias_(bias) {}

  // Rows in a file out of scope are credited to the innermost inlined call site in scope that
  // holds them (see InlineCalls); rows with none (out-of-line library code) are left out, so
  // their samples fall to the call chain.
  void add_cu(Dwarf_Die* cudie, Dwarf_Lines* lines, size_t count,
              std::vector<AddressRange>* ranges) {
    comp_dir_ = comp_dir_of(cudie);
    rows_.clear();
    in_scope_.clear();
    out_of_scope_.clear();
    const ExecSegment* segment = nullptr;  // of the current sequence; null: skip the sequence
    bool sequence_start = true;
    for (size_t i = 0; i + 1 < count; i++) {
      Dwarf_Line* l = dwarf_onesrcline(lines, i);
      bool end = false;
      Dwarf_Addr addr = 0, next = 0;
      if (!l || dwarf_lineendsequence(l, &end) != 0 || dwarf_lineaddr(l, &addr) != 0) {
        continue;
      }
      if (end) {
        sequence_start = true;
        continue;
      }
      uintptr_t lo = static_cast<uintptr_t>(addr) + bias_;
      if (sequence_start) {
        sequence_start = false;
        segment = segment_of(lo);
      }
      int number = 0;
      if (!segment || dwarf_lineaddr(dwarf_onesrcline(lines, i + 1), &next) != 0 ||
          dwarf_lineno(l, &number) != 0 || number <= 0) {
        continue;
      }
      uintptr_t hi = std::min<uintptr_t>(static_cast<uintptr_t>(next) + bias_, segment->hi);
      hi = std::min(hi, function_limit(lo));
      if (hi <= lo) {
        continue;
      }
      const std::string* file = resolve_file(dwarf_linesrc(l, nullptr, nullptr));
      rows_.push_back({lo, hi, file, static_cast<uint32_t>(number)});
      (file ? in_scope_ : out_of_scope_).push_back(addr);
    }
    if (out_of_scope_.empty() || in_scope_.empty()) {
      for (const Row& row : rows_) {
        if (row.file) {
          emit(row.lo, row.hi, line_of(row.file, row.number), ranges);
        }
      }
      return;
    }

    std::sort(in_scope_.begin(), in_scope_.end());
    std::sort(out_of_scope_.begin(), out_of_scope_.end());
    Dwarf_Files* files = nullptr;
    size_t file_count = 0;
    if (dwarf_getsrcfiles(cudie, &files, &file_count) != 0) {
      file_count = 0;
    }
    cu_files_.assign(file_count, kUnresolvedFile);
    auto file_at = [&](uint32_t index) -> const std::string* {
      if (index >= file_count) {
        return nullptr;
      }
      if (cu_files_[index] == kUnresolvedFile) {
        cu_files_[index] = resolve_file(dwarf_filesrc(files, index, nullptr, nullptr));
      }
      return cu_files_[index];
    };
    inlined_.read(cudie, &in_scope_, &out_of_scope_,
                  [&](uint32_t index) { return file_at(index) != nullptr; });
    call_lines_.clear();
    for (const InlineCalls::Call& call : inlined_.calls()) {
      call_lines_.push_back(line_of(file_at(call.file), call.line));
    }
    for (const Row& row : rows_) {
      if (row.file) {
        emit(row.lo, row.hi, line_of(row.file, row.number), ranges);
        continue;
      }
      // Split [lo, hi) over the inlined calls that hold it.
      Dwarf_Addr dlo = row.lo - bias_, dhi = row.hi - bias_;
      for (auto it = inlined_.first_after(dlo); it != inlined_.segments().end() && it->lo < dhi;
           ++it) {
        emit(std::max(dlo, it->lo) + bias_, std::min(dhi, it->hi) + bias_, call_lines_[it->call],
             ranges);
      }
    }
  }

  size_t distinct_lines() const { return seen_.size(); }

 private:
  static inline const std::string* const kUnresolvedFile =
      reinterpret_cast<const std::string*>(uintptr_t{1});

  static void emit(uintptr_t lo, uintptr_t hi, SourceLine* line,
                   std::vector<AddressRange>* ranges) {
    if (!ranges->empty() && ranges->back().line == line && ranges->back().hi == lo) {
      ranges->back().hi = hi;  // extend the previous range of the same line
    } else {
      ranges->push_back({lo, hi, line});
    }
  }

  // The interned name of a source file in scope, or nullptr.
  const std::string* resolve_file(const char* src) {
    if (!src) {
      return nullptr;
    }
    const char* comp_dir = src[0] == '/' ? nullptr : comp_dir_;
    auto f = files_.find({src, comp_dir});
    if (f == files_.end()) {
      std::string name = source_name(src, comp_dir);
      const std::string* interned =
          scope_.includes_source(name) ? table_->intern_file(name) : nullptr;
      f = files_.emplace(std::make_pair(src, comp_dir), interned).first;
    }
    return f->second;
  }

  SourceLine* line_of(const std::string* file, uint32_t number) {
    uint64_t key = (reinterpret_cast<uintptr_t>(file) << 20) ^ number;
    auto it = seen_.find(key);
    if (it != seen_.end() && *it->second->file == *file && it->second->line == number) {
      return it->second;
    }
    SourceLine* line = table_->intern_line(file, number);
    seen_[key] = line;
    return line;
  }

  // The end of the function containing `addr`, or the start of the next function when `addr` is
  // between functions; unlimited when the object has no function symbols.
  uintptr_t function_limit(uintptr_t addr) const {
    auto next = std::upper_bound(functions_.begin(), functions_.end(), addr,
                                 [](uintptr_t a, const ExecSegment& f) { return a < f.lo; });
    uintptr_t limit = next == functions_.end() ? UINTPTR_MAX : next->lo;
    // Functions may nest (aliases, local labels with sizes): take the innermost containing one.
    for (auto it = next; it != functions_.begin();) {
      --it;
      if (addr < it->hi) {
        return std::min(limit, it->hi);
      }
      if (next - it > 4) {
        break;
      }
    }
    return limit;
  }

  const ExecSegment* segment_of(uintptr_t addr) const {
    for (const ExecSegment& seg : segments_) {
      if (addr >= seg.lo && addr < seg.hi) {
        return &seg;
      }
    }
    return nullptr;
  }

  const Scope& scope_;
  LineTable* table_;
  std::vector<ExecSegment> segments_;   // runtime addresses
  std::vector<ExecSegment> functions_;  // runtime addresses, sorted
  uintptr_t bias_;                      // DWARF address -> runtime address
  struct PairHash {
    size_t operator()(const std::pair<const char*, const char*>& p) const {
      return std::hash<const char*>()(p.first) * 31 + std::hash<const char*>()(p.second);
    }
  };
  // (name, unit directory for a relative name) -> interned name, or nullptr out of scope.
  // libdw's strings are stable.
  std::unordered_map<std::pair<const char*, const char*>, const std::string*, PairHash> files_;
  const char* comp_dir_ = nullptr;  // of the unit being read
  std::unordered_map<uint64_t, SourceLine*> seen_;
  // Scratch for add_cu, kept to reuse its memory.
  struct Row {
    uintptr_t lo, hi;
    const std::string* file;  // nullptr: out of scope
    uint32_t number;
  };
  std::vector<Row> rows_;
  std::vector<Dwarf_Addr> in_scope_, out_of_scope_;  // DWARF addresses of the rows' starts
  InlineCalls inlined_;
  std::vector<const std::string*> cu_files_;  // the unit's file table, resolved on demand
  std::vector<SourceLine*> call_lines_;       // per inlined call: its call line
};

}  // namespace

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
    search = (debug_path.empty() ? "" : debug_path + ":") + ":.debug:/usr/lib/debug";
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
      message = object.path + " has " + what + "; compile it with -g";
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
                                               LineTable* table, const std::string& debug_path) {
  auto out = std::make_unique<ObjectLines>();
  out->object = object;
  DebugSession session(object, debug_path);
  out->status = session.status;
  out->message = session.message;
  if (session.status != DebugInfoStatus::kOk) {
    return out;
  }
  out->debug_file = session.debug_file;

  RangeCollector collector(scope, table, exec_segments(session.elf, session.elf_bias),
                           function_bounds(session.module, session.elf, session.elf_bias),
                           static_cast<uintptr_t>(session.dwarf_bias));
  std::vector<AddressRange> kept;
  size_t units_with_lines = 0;
  session.for_each_cu([&](Dwarf_Die* cudie) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(cudie, &lines, &count) == 0) {
      units_with_lines++;
      collector.add_cu(cudie, lines, count, &kept);
    }
    return true;
  });
  if (units_with_lines == 0) {
    session.set_missing(object, "no line tables");
    out->status = session.status;
    out->message = session.message;
    return out;
  }

  // Overlaps come from duplicated sequences (COMDAT code kept once but described by every unit
  // that had a copy): at equal starts the tighter range wins, then the first.
  std::stable_sort(kept.begin(), kept.end(), [](const AddressRange& a, const AddressRange& b) {
    return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
  });
  std::vector<AddressRange>& final_ranges = out->ranges;
  final_ranges.reserve(kept.size());
  for (const AddressRange& r : kept) {
    if (!final_ranges.empty() && r.lo < final_ranges.back().hi) {
      if (r.hi > final_ranges.back().hi) {
        final_ranges.push_back({final_ranges.back().hi, r.hi, r.line});
      }
      continue;
    }
    final_ranges.push_back(r);
  }
  final_ranges.shrink_to_fit();
  if (!final_ranges.empty()) {
    out->lo = final_ranges.front().lo;
    out->hi = final_ranges.back().hi;
  }
  out->lines_in_scope = collector.distinct_lines();
  out->status = DebugInfoStatus::kOk;
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

void for_each_loaded_object(void (*visit)(const LoadedObject&, void*), void* context) {
  struct Context {
    void (*visit)(const LoadedObject&, void*);
    void* context;
    bool first;
  } ctx = {visit, context, true};
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
