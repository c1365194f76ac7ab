#include "program_check.h"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

// `count` bytes at `offset` of `fd`; empty when the file is shorter or unreadable.
std::string ReadAt(int fd, uint64_t offset, size_t count) {
  std::string bytes(count, '\0');
  size_t done = 0;
  while (done < count) {
    const ssize_t n =
        pread(fd, bytes.data() + done, count - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {};
    done += static_cast<size_t>(n);
  }
  return bytes;
}

// True when the ELF file `fd` (header `eh`) has a section named one of `names`. The
// section headers and their name table are read at once: a launcher checks the program
// of every run.
bool HasSection(int fd, const Elf64_Ehdr& eh, std::initializer_list<std::string_view> names) {
  if (eh.e_shoff == 0 || eh.e_shstrndx >= eh.e_shnum || eh.e_shentsize < sizeof(Elf64_Shdr)) {
    return false;
  }
  const std::string headers = ReadAt(fd, eh.e_shoff, size_t{eh.e_shnum} * eh.e_shentsize);
  if (headers.empty()) return false;
  const auto header = [&](int i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, headers.data() + static_cast<size_t>(i) * eh.e_shentsize, sizeof(sh));
    return sh;
  };
  const Elf64_Shdr strtab = header(eh.e_shstrndx);
  constexpr uint64_t kMaxNames = uint64_t{1} << 20;
  const std::string table = ReadAt(fd, strtab.sh_offset, std::min(strtab.sh_size, kMaxNames));
  for (int i = 0; i < eh.e_shnum; ++i) {
    const uint64_t at = header(i).sh_name;
    if (at >= table.size()) continue;
    const std::string_view section(table.c_str() + at);  // The table ends in a NUL.
    if (std::find(names.begin(), names.end(), section) != names.end()) return true;
  }
  return false;
}

// True when the ELF file `fd` (header `eh`) asks for an interpreter (is dynamically linked).
bool HasInterpreter(int fd, const Elf64_Ehdr& eh) {
  if (eh.e_phentsize < sizeof(Elf64_Phdr)) return false;
  const std::string headers = ReadAt(fd, eh.e_phoff, size_t{eh.e_phnum} * eh.e_phentsize);
  for (int i = 0; i < eh.e_phnum && !headers.empty(); ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, headers.data() + static_cast<size_t>(i) * eh.e_phentsize, sizeof(ph));
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}

// Empty when the ELF file `fd` (header `eh`) can be interposed; otherwise why not.
std::string WhyNotInterposableElf(const std::string& program, int fd, const Elf64_Ehdr& eh) {
  if (!HasInterpreter(fd, eh)) {
    return program +
           " is statically linked (no ELF interpreter): LD_PRELOAD cannot reach its calls";
  }
  if (HasSection(fd, eh, {".go.buildinfo", ".note.go.buildid"})) {
    return program +
           " is a Go program: it makes its system calls itself, not through the "
           "C library, so LD_PRELOAD cannot reach them";
  }
  return {};
}

// What WhyNotInterposableElf said of an ELF file, while the file stays the same (its
// device, inode, size and change time): a sweep starts the same program at every run.
class ElfVerdicts final {
 public:
  static ElfVerdicts& Get() {
    static ElfVerdicts verdicts;
    return verdicts;
  }
  std::optional<std::string> Find(const std::string& program, const struct stat& st) {
    const std::lock_guard<std::mutex> lock(mu_);
    const auto it = verdicts_.find(program);
    if (it == verdicts_.end() || it->second.first != Identity(st)) return std::nullopt;
    return it->second.second;
  }
  void Keep(const std::string& program, const struct stat& st, const std::string& why) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (verdicts_.size() >= kMaxVerdicts) verdicts_.clear();
    verdicts_[program] = {Identity(st), why};
  }

 private:
  using Id = std::array<uint64_t, 5>;
  static constexpr size_t kMaxVerdicts = 64;
  static Id Identity(const struct stat& st) {
    return {st.st_dev, st.st_ino, static_cast<uint64_t>(st.st_size),
            static_cast<uint64_t>(st.st_ctim.tv_sec), static_cast<uint64_t>(st.st_ctim.tv_nsec)};
  }
  std::mutex mu_;
  std::map<std::string, std::pair<Id, std::string>> verdicts_;
};

// WhyNotInterposable, following a script's interpreter `depth` levels deep.
std::string WhyNotInterposableAt(const std::string& program, int depth) {
  struct stat st {};
  const bool stated = stat(program.c_str(), &st) == 0;
  if (stated && (st.st_mode & (S_ISUID | S_ISGID)) != 0) {
    return program + " is setuid or setgid: the dynamic loader ignores LD_PRELOAD for it";
  }
  if (stated) {
    if (std::optional<std::string> known = ElfVerdicts::Get().Find(program, st)) return *known;
  }
  const int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("cannot read {}: {}", program, std::strerror(errno));
  char head[256] = {};
  ssize_t n;
  while ((n = read(fd, head, sizeof(head) - 1)) < 0 && errno == EINTR) {
  }
  if (n >= 2 && head[0] == '#' && head[1] == '!') {
    close(fd);
    std::string line(head + 2, strcspn(head + 2, "\n"));
    const size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos || depth > 2) return program + ": script without interpreter";
    line = line.substr(begin, line.find_first_of(" \t", begin) - begin);
    return WhyNotInterposableAt(line, depth + 1);
  }
  Elf64_Ehdr eh;
  const bool elf = n >= static_cast<ssize_t>(sizeof(eh)) &&
                   std::memcmp(head, ELFMAG, SELFMAG) == 0 && head[EI_CLASS] == ELFCLASS64;
  std::string why = program + " is not a 64-bit ELF executable or a script";
  if (elf) {
    std::memcpy(&eh, head, sizeof(eh));
    why = WhyNotInterposableElf(program, fd, eh);
    if (stated) ElfVerdicts::Get().Keep(program, st, why);
  }
  close(fd);
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
  // Looked for once: this executable does not move.
  static const std::optional<std::string> kBeside = []() -> std::optional<std::string> {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return std::nullopt;
    for (const fs::path& candidate :
         {exe.parent_path() / kShimName, exe.parent_path().parent_path() / "lib" / kShimName,
          exe.parent_path().parent_path() / SPILLWAY_INSTALL_LIBDIR / kShimName}) {
      if (fs::exists(candidate, ec)) return candidate.string();
    }
    return std::nullopt;
  }();
  return kBeside;
}

}  // namespace spillway::inject
