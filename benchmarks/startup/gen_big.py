#!/usr/bin/env python3
"""Generates a large C++ program whose debug information runs to tens of MB.

Each translation unit instantiates standard containers for its own types (lots of DWARF types and
inlined lines) and defines many small functions (lots of line-table rows). main() records the
CLOCK_MONOTONIC time at which it started and exits, so start-up cost is all that is measured.
"""
import os
import sys

UNITS = int(os.environ.get("BIG_UNITS", "24"))
FUNCS = int(os.environ.get("BIG_FUNCS", "250"))

def unit(u):
    out = [
        "#include <map>", "#include <string>", "#include <vector>", "#include <unordered_map>",
        "#include <set>", "#include <deque>", "#include <sstream>", "#include <algorithm>",
        f"namespace u{u} {{",
        f"struct Item{u} {{ int a; double b; std::string s; bool operator<(const Item{u}& o) const {{ return a < o.a; }} }};",
    ]
    for f in range(FUNCS):
        out.append(f"""__attribute__((noinline)) long f{f}(long x) {{
  std::vector<Item{u}> v;
  std::map<int, std::string> m;
  for (long i = 0; i < x % 7; i++) {{
    v.push_back(Item{u}{{int(i), double(i) * {f}.5, std::to_string(i)}});
    m[int(i * {f + 1})] = v.back().s;
  }}
  std::sort(v.begin(), v.end());
  long r = x;
  for (const auto& it : v) r += it.a * {f + 3};
  return r + long(m.size());
}}""")
    out.append("}  // namespace")
    out.append(f"long run_unit{u}(long x) {{")
    out.append("  long r = 0;")
    for f in range(FUNCS):
        out.append(f"  r += u{u}::f{f}(x + {f});")
    out.append("  return r;\n}")
    return "\n".join(out) + "\n"

def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    for u in range(UNITS):
        path = os.path.join(outdir, f"unit{u}.cpp")
        text = unit(u)
        if not os.path.exists(path) or open(path).read() != text:
            open(path, "w").write(text)
    decls = "\n".join(f"long run_unit{u}(long);" for u in range(UNITS))
    calls = "\n".join(f"    r += run_unit{u}(argc);" for u in range(UNITS))
    main_text = f"""#include <cstdio>
#include <ctime>
{decls}
int main(int argc, char** argv) {{
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  std::printf("main %lld\\n", (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec);
  long r = 0;
  if (argc > 100) {{  // never true: keeps every unit linked in
{calls}
  }}
  return int(r & 1);
}}
"""
    open(os.path.join(outdir, "main.cpp"), "w").write(main_text)

if __name__ == "__main__":
    main(sys.argv[1])
