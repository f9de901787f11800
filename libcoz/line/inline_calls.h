// The inlined calls of a compilation unit, for crediting inlined library code to the user's call
// line (used by line_map.cpp when it builds the line map; nothing here runs per sample).
// Threads: one object per reader, used by one thread.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace coz {

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

}  // namespace coz
