// In-scope address ranges from compilation units' line tables (see cu_ranges.h).
#include "line/cu_ranges.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "line/inline_calls.h"

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

  size_t distinct_lines() const { return distinct_; }
  // Names read so far point into the session's memory: forgotten before it ends.
  void forget_names() {
    files_.clear();
    comp_dir_ = nullptr;
  }

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

  // The interned line, through a small cache of recent ones (the table takes a lock); each line
  // is counted once per load by marking it with the load's number.
  SourceLine* line_of(const std::string* file, uint32_t number) {
    uint64_t key = (reinterpret_cast<uintptr_t>(file) << 20) ^ number;
    Cached& slot = recent_[(key * 0x9e3779b97f4a7c15ull) >> (64 - kRecentBits)];
    if (slot.line == nullptr || slot.line->file != file || slot.line->line != number) {
      slot.line = table_->intern_line(file, number);
    }
    SourceLine* line = slot.line;
    if (line->loaded_by.load(std::memory_order_relaxed) != load_) {
      line->loaded_by.store(load_, std::memory_order_relaxed);
      distinct_++;
    }
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
  struct Cached {
    SourceLine* line = nullptr;
  };
  static constexpr unsigned kRecentBits = 12;
  std::vector<Cached> recent_ = std::vector<Cached>(size_t{1} << kRecentBits);
  // This load's number (LineTable::begin_load), and its distinct lines.
  const uint32_t load_ = table_->begin_load();
  size_t distinct_ = 0;
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

namespace {

// Whether some section of `elf` satisfies visit(scn, header, name); name may be null.
template <typename Visit>
bool any_section(Elf* elf, Visit&& visit) {
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    return false;
  }
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && visit(scn, sh, elf_strptr(elf, shstrndx, sh.sh_name))) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool has_compressed_debug_sections(Elf* elf) {
  return any_section(elf, [](Elf_Scn*, const GElf_Shdr& sh, const char* name) {
    return name && ((sh.sh_flags & SHF_COMPRESSED) || strncmp(name, ".zdebug", 7) == 0);
  });
}

// True if `elf` has debug sections compressed with zstd (which libelf may not read).
bool has_zstd_debug_sections(Elf* elf) {
  return any_section(elf, [](Elf_Scn* scn, const GElf_Shdr& sh, const char* name) {
    if (!(sh.sh_flags & SHF_COMPRESSED) || !name || strncmp(name, ".debug", 6) != 0) {
      return false;
    }
    Elf_Data* raw = elf_rawdata(scn, nullptr);
    if (!raw || raw->d_size < sizeof(uint32_t)) {
      return false;
    }
    uint32_t type;
    memcpy(&type, raw->d_buf, sizeof type);  // ch_type is the first word of Elf32/64_Chdr
    return type == kElfCompressZstd;
  });
}

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

class CuRanges::Impl : public RangeCollector {
 public:
  using RangeCollector::RangeCollector;
};

CuRanges::CuRanges(const Scope& scope, LineTable* table, Elf* elf, Dwfl_Module* module,
                   uintptr_t elf_bias, uintptr_t dwarf_bias)
    : impl_(std::make_unique<Impl>(scope, table, exec_segments(elf, elf_bias),
                                   function_bounds(module, elf, elf_bias), dwarf_bias)) {}

CuRanges::~CuRanges() = default;

void CuRanges::add_cu(Dwarf_Die* cudie, Dwarf_Lines* lines, size_t count,
                      std::vector<AddressRange>* ranges) {
  impl_->add_cu(cudie, lines, count, ranges);
}

size_t CuRanges::distinct_lines() const {
  return impl_->distinct_lines();
}

void CuRanges::forget_names() {
  impl_->forget_names();
}

}  // namespace coz
