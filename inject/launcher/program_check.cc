#include "program_check.h"

#include <elf.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

// True when the ELF file `f` (header `eh`) has a section named `name`.
bool HasSection(FILE* f, const Elf64_Ehdr& eh, std::string_view name) {
  Elf64_Shdr strtab;
  if (eh.e_shoff == 0 || eh.e_shstrndx >= eh.e_shnum ||
      std::fseek(f, static_cast<long>(eh.e_shoff + uint64_t{eh.e_shstrndx} * eh.e_shentsize),
                 SEEK_SET) != 0 ||
      std::fread(&strtab, sizeof(strtab), 1, f) != 1) {
    return false;
  }
  for (int i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    char section[32] = {};
    if (std::fseek(f, static_cast<long>(eh.e_shoff + static_cast<uint64_t>(i) * eh.e_shentsize),
                   SEEK_SET) != 0 ||
        std::fread(&sh, sizeof(sh), 1, f) != 1 ||
        std::fseek(f, static_cast<long>(strtab.sh_offset + sh.sh_name), SEEK_SET) != 0 ||
        std::fread(section, 1, sizeof(section) - 1, f) == 0) {
      return false;
    }
    if (name == section) return true;
  }
  return false;
}

// True when the ELF file `f` (header `eh`) asks for an interpreter (is dynamically linked).
bool HasInterpreter(FILE* f, const Elf64_Ehdr& eh) {
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (std::fseek(f, static_cast<long>(eh.e_phoff + static_cast<uint64_t>(i) * eh.e_phentsize),
                   SEEK_SET) != 0 ||
        std::fread(&ph, sizeof(ph), 1, f) != 1) {
      return false;
    }
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}

// Empty when the ELF file `f` (header `eh`) can be interposed; otherwise why not.
std::string WhyNotInterposableElf(const std::string& program, FILE* f, const Elf64_Ehdr& eh) {
  if (!HasInterpreter(f, eh)) {
    return program +
           " is statically linked (no ELF interpreter): LD_PRELOAD cannot reach its calls";
  }
  if (HasSection(f, eh, ".go.buildinfo") || HasSection(f, eh, ".note.go.buildid")) {
    return program +
           " is a Go program: it makes its system calls itself, not through the "
           "C library, so LD_PRELOAD cannot reach them";
  }
  return {};
}

// WhyNotInterposable, following a script's interpreter `depth` levels deep.
std::string WhyNotInterposableAt(const std::string& program, int depth) {
  struct stat st;
  if (stat(program.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) != 0) {
    return program + " is setuid or setgid: the dynamic loader ignores LD_PRELOAD for it";
  }
  FILE* f = std::fopen(program.c_str(), "rb");
  if (f == nullptr) return fmt::format("cannot read {}: {}", program, std::strerror(errno));
  char head[256] = {};
  const size_t n = std::fread(head, 1, sizeof(head) - 1, f);
  if (n >= 2 && head[0] == '#' && head[1] == '!') {
    std::fclose(f);
    std::string line(head + 2, strcspn(head + 2, "\n"));
    const size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos || depth > 2) return program + ": script without interpreter";
    line = line.substr(begin, line.find_first_of(" \t", begin) - begin);
    return WhyNotInterposableAt(line, depth + 1);
  }
  Elf64_Ehdr eh;
  const bool elf =
      n >= sizeof(eh) && std::memcmp(head, ELFMAG, SELFMAG) == 0 && head[EI_CLASS] == ELFCLASS64;
  std::string why = program + " is not a 64-bit ELF executable or a script";
  if (elf) {
    std::memcpy(&eh, head, sizeof(eh));
    why = WhyNotInterposableElf(program, f, eh);
  }
  std::fclose(f);
  return why;
}

}  // namespace

std::optional<std::string> FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return access(name.c_str(), X_OK) == 0 ? std::optional(name) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, colon - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = colon + 1;
  }
  return std::nullopt;
}

std::string WhyNotInterposable(const std::string& program) {
  return WhyNotInterposableAt(program, 0);
}

std::optional<std::string> FindShim() {
  if (const char* env = std::getenv("SPILLWAY_INJECT_LIBRARY"); env != nullptr) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const fs::path& candidate :
       {exe.parent_path() / kShimName, exe.parent_path().parent_path() / "lib" / kShimName,
        exe.parent_path().parent_path() / SPILLWAY_INSTALL_LIBDIR / kShimName}) {
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

}  // namespace spillway::inject
