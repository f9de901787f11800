// Pre-run checks for `coz run` (see preflight.h).
#include "commands/preflight.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string_view>
#include <vector>

#include "base/platform.h"
#include "base/unique_fd.h"
#include "line/elf_sections.h"
#include "line/line_map.h"
#include "record/profile_writer.h"
#include "sample/perf_sampler.h"
#include "sample/sampler_choice.h"

namespace coz::cli {
namespace {

ProgramKind classify(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh;
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) {
    in.clear();
    in.seekg(0);
    char head[2] = {0, 0};
    in.read(head, 2);
    return head[0] == '#' && head[1] == '!' ? ProgramKind::kScript : ProgramKind::kOther;
  }
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return eh.e_ident[0] == '#' && eh.e_ident[1] == '!' ? ProgramKind::kScript
                                                        : ProgramKind::kOther;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return ProgramKind::kOther;  // 32-bit programs cannot load this 64-bit runtime
  }
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) {
      break;
    }
    if (ph.p_type == PT_INTERP) {
      return ProgramKind::kDynamicElf;
    }
  }
  return ProgramKind::kStaticElf;
}

// Whether the dynamic ELF at `path` can start other programs or processes: it imports fork,
// vfork, clone, an exec function, posix_spawn, system or popen (a shell, a build driver, a test
// runner). True when its symbols cannot be read.
bool starts_processes(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ElfSections elf;
  if (fd.get() < 0 || !read_elf_sections(fd.get(), &elf)) {
    return true;
  }
  for (const Elf64_Shdr& s : elf.headers) {
    if (s.sh_type != SHT_DYNSYM || s.sh_link >= elf.headers.size() ||
        s.sh_entsize != sizeof(Elf64_Sym)) {
      continue;
    }
    std::vector<unsigned char> symbols, names;
    if (!read_section(fd.get(), s, 64u << 20, &symbols) ||
        !read_section(fd.get(), elf.headers[s.sh_link], 64u << 20, &names)) {
      return true;
    }
    names.push_back(0);
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= symbols.size(); at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      memcpy(&sym, symbols.data() + at, sizeof sym);
      if (sym.st_shndx != SHN_UNDEF || sym.st_name + 1 >= names.size()) {
        continue;
      }
      std::string_view name(reinterpret_cast<const char*>(names.data()) + sym.st_name);
      for (std::string_view starter :
           {"fork", "vfork", "clone", "execve", "execv", "execvp", "execvpe", "execl", "execlp",
            "execle", "fexecve", "posix_spawn", "posix_spawnp", "system", "popen"}) {
        if (name == starter) {
          return true;
        }
      }
    }
    return false;
  }
  return true;
}

}  // namespace

bool resolve_program(const std::string& name, Program* out, std::string* error) {
  std::string path;
  if (name.find('/') != std::string::npos) {
    path = name;
  } else {
    const char* env_path = getenv("PATH");
    std::string dirs = env_path ? env_path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t colon = dirs.find(':', start);
      std::string dir = dirs.substr(start, colon == std::string::npos ? colon : colon - start);
      std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
      struct stat st;
      if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          access(candidate.c_str(), X_OK) == 0) {
        path = candidate;
        break;
      }
      if (colon == std::string::npos) {
        break;
      }
      start = colon + 1;
    }
    if (path.empty()) {
      *error = "program '" + name + "' not found on PATH; give its path, e.g. ./" + name;
      return false;
    }
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "program '" + path + "' not found (" + strerror(errno) + ")";
    return false;
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    *error = "program '" + path + "' is not executable" +
             (S_ISDIR(st.st_mode) ? std::string(" (it is a directory)") : "; try chmod +x " + path);
    return false;
  }
  out->path = path;
  out->kind = classify(path);
  return true;
}

bool check_preloadable(const Program& program, std::string* error) {
  if (program.kind == ProgramKind::kStaticElf) {
    *error = "'" + program.path +
             "' is statically linked, so the profiler cannot be preloaded into it; "
             "link it dynamically (drop -static)";
    return false;
  }
  // The loader ignores LD_PRELOAD in a program that gains privileges (set-user-ID or
  // set-group-ID to someone else, or file capabilities): glibc's secure-execution mode.
  struct stat st;
  if (stat(program.path.c_str(), &st) == 0) {
    bool gains_user = (st.st_mode & S_ISUID) && st.st_uid != geteuid();
    bool gains_group = (st.st_mode & S_ISGID) && st.st_gid != getegid();
    if (gains_user || gains_group) {
      *error = "'" + program.path + "' is set-" + (gains_user ? "user" : "group") +
               "-ID, so the loader ignores the profiler for it (secure execution); profile a "
               "copy without that bit (cp it, or chmod u-s,g-s)";
      return false;
    }
  }
  if (getxattr(program.path.c_str(), "security.capability", nullptr, 0) > 0) {
    *error = "'" + program.path +
             "' has file capabilities, so the loader ignores the profiler for it (secure "
             "execution); profile a copy without them (cp it, or setcap -r)";
    return false;
  }
  return true;
}

bool check_debug_info(const Program& program, const RunConfig& options, std::string* error) {
  // Only the default binary scope (the executable itself) can be checked before the run.
  if (program.kind != ProgramKind::kDynamicElf ||
      !(options.binary_scope.empty() ||
        (options.binary_scope.size() == 1 && options.binary_scope[0] == kMainBinary))) {
    return true;
  }
  Scope scope(options.binary_scope, options.source_scope, options.include_system);
  RunConfig environment;  // COZ_DEBUG_PATH: the user's, passed through to the runtime
  std::string ignored;    // a value that takes any text
  read_from_environment(kDebugPathVariable, &environment, &ignored);
  DebugProbe probe =
      probe_debug_info(LoadedObject{program.path, 0, true}, scope, environment.debug_path);
  if (probe.status == DebugInfoStatus::kNoDebugInfo && options.follow_children &&
      starts_processes(program.path)) {
    return true;  // a shell or a build driver coordinates the run: the programs it starts bring
                  // the lines (the runtime says at the end if none did)
  }
  if (probe.status != DebugInfoStatus::kOk) {
    *error = probe.message;
    if (probe.status == DebugInfoStatus::kNoDebugInfo) {
      *error += " (for example gcc -g -O2), or name libraries that have it with --binary-scope";
    }
    return false;
  }
  if (!probe.source_in_scope) {
    std::string patterns;
    for (const std::string& p : options.source_scope) {
      patterns += (patterns.empty() ? "" : ",") + p;
    }
    *error = "no source file of " + program.path + " matches --source-scope " + patterns +
             "; check the pattern (use % or * as wildcards)";
    return false;
  }
  return true;
}

bool check_sampler(const RunConfig& config, std::string* error) {
  // The runtime's choice, made the same way; then a thread's sampler opened, which also tries
  // what the engine's own check does not (perf's ring, against the locked-memory limit).
  SamplerChoice choice = choose_sampler(config.sampler);
  if (!choice.error.empty()) {
    *error = choice.error;
    return false;
  }
  if (choice.kind != SamplerKind::kPerf) {
    return true;  // any process may time its own threads, and read their clocks
  }
  std::unique_ptr<SamplerBackend> engine = make_sampler(choice.kind, SamplerSettings{});
  if (engine->open_thread(platform::current_tid(), error)) {
    return true;
  }
  if (PerfSamplerBackend::refused(errno)) {
    *error += kWithoutPerf;  // the test event passed, the sampling one did not
  }
  return false;
}

bool check_output_writable(const std::string& path, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error =
        "cannot write the profile to " + path + ": it is a directory; give a file name with -o";
    return false;
  }
  ProfileWriter writer;
  if (!writer.open(path, error)) {
    *error += "; choose another file with -o";
    return false;
  }
  return true;
}

}  // namespace coz::cli
