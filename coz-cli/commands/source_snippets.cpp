// Source snippets for `coz plot`, read only from files that look like source (see
// source_snippets.h).
#include "commands/source_snippets.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string_view>

#include "analysis/location.h"
#include "output/json_writer.h"

namespace coz::cli {
namespace {

// Lower-case extensions of files that compilers put in line tables (and their headers and
// includes). Anything else, such as a key, a config file or a data file, is not read.
constexpr std::string_view kSourceExtensions[] = {
    // C, C++, Objective-C and their headers and template includes
    "c", "h", "cc", "cp", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "tpp", "tcc",
    "txx", "inl", "inc", "def", "ixx", "cppm", "ccm", "cxxm", "m", "mm", "i", "ii",
    // CUDA, HIP, OpenCL, ISPC
    "cu", "cuh", "hip", "cl", "ispc",
    // Rust, Go, Zig, D, Swift, Nim, Odin, Crystal
    "rs", "go", "zig", "d", "di", "swift", "nim", "odin", "cr",
    // Fortran
    "f", "for", "ftn", "fpp", "f77", "f90", "f95", "f03", "f08", "f18",
    // assembly
    "s", "sx", "asm",
    // Ada, Pascal, Haskell, OCaml, Cython, Vala, yacc/bison, lex/flex
    "adb", "ads", "pas", "pp", "lpr", "hs", "lhs", "ml", "mli", "pyx", "pxd", "pxi", "vala", "y",
    "yy", "l", "ll"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

// Whether any component of `relative` (a path below the source root) starts with '.'.
bool hidden_component(const std::string& relative) {
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) {
      end = relative.size();
    }
    if (end > start && relative[start] == '.') {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// Text: no NUL and no control byte but tab, line feed, carriage return, form feed and vertical tab.
bool is_text(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') || c == 0x7f) {
      return false;
    }
  }
  return true;
}

// `line` with invalid UTF-8 replaced by U+FFFD and cut to kMaxSnippetLine bytes (on a character).
std::string clean_line(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    if (out.size() >= kMaxSnippetLine) {
      out += "\u2026";
      break;
    }
    unsigned char c = static_cast<unsigned char>(line[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= line.size();
    uint32_t code = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; ok && k < len; k++) {
      unsigned char d = static_cast<unsigned char>(line[i + k]);
      ok = (d >> 6) == 0x2;
      code = (code << 6) | (d & 0x3f);
    }
    // No overlong forms, surrogates or code points past U+10FFFF.
    ok = ok && !(len == 2 && code < 0x80) && !(len == 3 && code < 0x800) &&
         !(len == 4 && code < 0x10000) && !(code >= 0xd800 && code < 0xe000) && code <= 0x10ffff;
    if (ok) {
      out.append(line.substr(i, len));
      i += len;
    } else {
      out += "\ufffd";
      i++;
    }
  }
  return out;
}

}  // namespace

bool has_source_extension(const std::string& name) {
  size_t slash = name.rfind('/');
  std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  size_t dot = base.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == base.size()) {
    return false;
  }
  std::string ext = lower(std::string_view(base).substr(dot + 1));
  for (std::string_view known : kSourceExtensions) {
    if (ext == known) {
      return true;
    }
  }
  return false;
}

SourceReader disk_sources(const std::string& root_dir) {
  char real_root[PATH_MAX];
  std::string root = realpath(root_dir.c_str(), real_root) ? real_root : "";
  auto budget = std::make_shared<size_t>(kMaxAllSourceBytes);
  return [root, budget](const std::string& file, std::string* text, std::string* reason) {
    if (root.empty()) {
      *reason = "no source root";
      return false;
    }
    char real[PATH_MAX];
    if (!realpath(file.c_str(), real)) {
      *reason = "not found";
      return false;
    }
    std::string path(real);
    for (const char* system : {"/proc/", "/sys/", "/dev/"}) {
      if (path.rfind(system, 0) == 0) {
        *reason = "system file";
        return false;
      }
    }
    if (root != "/" && path.rfind(root + "/", 0) != 0) {
      *reason = "outside the source root";
      return false;
    }
    if (hidden_component(path.substr(root == "/" ? 1 : root.size() + 1))) {
      *reason = "hidden path";
      return false;
    }
    if (!has_source_extension(file) || !has_source_extension(path)) {
      *reason = "not a source file";
      return false;
    }
    // O_NONBLOCK: a FIFO put there since realpath must not hang the open.
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      *reason = fd < 0 ? "not readable" : "not a regular file";
      if (fd >= 0) {
        close(fd);
      }
      return false;
    }
    size_t size = static_cast<size_t>(st.st_size);
    if (size == 0 || size > kMaxSourceBytes || size > *budget) {
      *reason = size == 0                ? "empty"
                : size > kMaxSourceBytes ? "larger than 8 MiB"
                                         : "too much source for one page";
      close(fd);
      return false;
    }
    text->resize(size);
    size_t got = 0;
    while (got < size) {
      ssize_t n = read(fd, &(*text)[got], size - got);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        break;
      }
      got += static_cast<size_t>(n);
    }
    close(fd);
    text->resize(got);
    *budget -= got;
    return true;
  };
}

Snippets source_snippets(const analysis::Report& report, const SourceReader& read) {
  std::map<std::string, std::set<int64_t>> wanted;
  for (const analysis::Series& s : report.series) {
    if (!s.line.is_file_line()) {
      continue;
    }
    int64_t n = s.line.number;
    std::set<int64_t>& numbers = wanted[s.line.file];
    for (int64_t k = n - kSnippetContext; k <= n + kSnippetContext; k++) {
      if (k > 0) {
        numbers.insert(k);
      }
    }
  }
  Snippets out;
  output::JsonWriter w;
  w.begin_object();
  std::string text, reason;
  for (const auto& [file, numbers] : wanted) {
    if (numbers.empty()) {
      continue;
    }
    text.clear();
    reason.clear();
    if (!read(file, &text, &reason)) {
      out.left_out.push_back(LeftOut{file, reason});
      continue;
    }
    if (!is_text(text)) {
      out.left_out.push_back(LeftOut{file, "not text"});
      continue;
    }
    w.begin_object(file);
    std::string_view rest(text);
    int64_t n = 0, last = *numbers.rbegin();
    while (n < last && !rest.empty()) {
      size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
      if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
      }
      if (numbers.count(++n)) {
        w.value(std::to_string(n), clean_line(line));
      }
    }
    w.end_object();
  }
  w.end_object();
  out.json = w.text();
  return out;
}

std::string Snippets::left_out_json() const {
  output::JsonWriter w;
  w.begin_array();
  for (const LeftOut& l : left_out) {
    w.begin_object().value("file", l.file).value("reason", l.reason).end_object();
  }
  w.end_array();
  return w.text();
}

std::string Snippets::left_out_line() const {
  if (left_out.empty()) {
    return "";
  }
  constexpr size_t kNamed = 5;
  std::string line = "source not shown for " + std::to_string(left_out.size()) +
                     (left_out.size() == 1 ? " file: " : " files: ");
  for (size_t i = 0; i < left_out.size() && i < kNamed; i++) {
    // Names from the profile: the line goes out through tell(), which escapes them.
    line += (i ? ", " : "") + left_out[i].file + " (" + left_out[i].reason + ")";
  }
  if (left_out.size() > kNamed) {
    line += ", and " + std::to_string(left_out.size() - kNamed) + " more";
  }
  return line;
}

}  // namespace coz::cli
