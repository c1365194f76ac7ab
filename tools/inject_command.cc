// `spillway inject`: runs an unmodified, dynamically linked program with fault rules
// applied to its filesystem calls under the scope directories, through the LD_PRELOAD shim
// libspillway_inject.so (inject/). docs/inject.md is the user's guide.
//
// The tool validates everything before the program starts (bad input exits 2 with one
// line), writes the rules and scopes into a shared state file (inject/shared_state.h) that
// every process of the run maps, runs the program, and at its exit prints a summary built
// from that file and from the scope directories' contents before and after.
#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "shared_state.h"
#include "spillway/vfs/fault_rules.h"
#include "trace_symbols.h"

namespace spillway::tools {
namespace {

namespace fs = std::filesystem;
using inject::SharedState;

constexpr char kShimName[] = "libspillway_inject.so";

struct InjectArgs {
  std::vector<std::string> under;
  std::vector<std::string> faults;
  std::string quota;
  uint64_t seed = 0;
  std::string trace;
  bool no_symbolize = false;  // Leave the trace's frames as the shim wrote them.
  bool json = false;
  double timeout = 0;
  std::string share_with;  // A user the state and trace files are handed to.
  std::vector<std::string> command;
};

// "100", "64K", "10M", "1G": bytes.
std::optional<uint64_t> ParseQuota(const std::string& text) {
  static constexpr std::pair<char, int> kSuffixes[] = {{'K', 10}, {'M', 20}, {'G', 30}};
  std::string digits = text;
  int shift = 0;
  for (const auto& [suffix, bits] : kSuffixes) {
    if (!digits.empty() && digits.back() == suffix) {
      digits.pop_back();
      shift = bits;
    }
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
      digits.size() > 15) {
    return std::nullopt;
  }
  const uint64_t value = std::stoull(digits) << shift;
  if (value == 0) return std::nullopt;
  return value;
}

// The file `name` runs: itself when it has a '/', else the first executable on PATH.
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

// Empty when `program` can be interposed (a dynamically linked ELF that is not Go and not
// setuid, or a script whose interpreter is one); otherwise why not.
std::string WhyNotInterposable(const std::string& program, int depth = 0) {
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
    return WhyNotInterposable(line, depth + 1);
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

// The shim: next to this executable (the build tree), or in the install tree's lib dir.
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

// Every entry under `dir` (relative path -> size, directories 0).
std::map<std::string, uint64_t> Snapshot(const std::string& dir) {
  std::map<std::string, uint64_t> entries;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    const bool regular = it->is_regular_file(ec);
    entries[fs::relative(it->path(), dir, ec).string()] = regular ? it->file_size(ec) : 0;
  }
  return entries;
}

uint64_t TotalBytes(const std::map<std::string, uint64_t>& entries) {
  uint64_t total = 0;
  for (const auto& [path, size] : entries) total += size;
  return total;
}

void CheckedCopy(char* out, size_t capacity, const std::string& value, const char* what) {
  if (value.size() >= capacity) throw UsageError(fmt::format("{} is too long: {}", what, value));
  std::memcpy(out, value.c_str(), value.size() + 1);
}

// Hands the open file `fd` to `user` (keeping mode 0600), so that a process of the run that
// switches to that user (PostgreSQL's server started as root through runuser) can still
// count, decide and trace; the caller, root, keeps access. No-op for an empty user.
// Returns 0, or the errno: ENOENT for an unknown user, else why chown failed.
int HandTo(int fd, const std::string& user) {
  if (user.empty()) return 0;
  const struct passwd* entry = getpwnam(user.c_str());
  if (entry == nullptr) return ENOENT;
  if (fchown(fd, entry->pw_uid, static_cast<gid_t>(-1)) != 0 || fchmod(fd, 0600) != 0) {
    return errno;
  }
  return 0;
}

std::string ShareError(const std::string& user, const std::string& what, int error) {
  if (error == ENOENT) return fmt::format("--share-with {}: no such user", user);
  return fmt::format("--share-with {}: cannot hand {} to the user: {}{}", user, what,
                     std::strerror(error), error == EPERM ? " (it needs root)" : "");
}

// Fills the state from the arguments. Throws UsageError.
void FillState(const InjectArgs& args, SharedState* state, const std::string& shim,
               const std::string& state_path) {
  state->magic = inject::kStateMagic;
  state->size = sizeof(SharedState);
  state->seed = args.seed;
  if (args.under.size() > inject::kMaxScopes) {
    throw UsageError(fmt::format("at most {} --under directories", inject::kMaxScopes));
  }
  for (const std::string& dir : args.under) {
    char resolved[PATH_MAX];
    struct stat st;
    if (realpath(dir.c_str(), resolved) == nullptr || stat(resolved, &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
      throw UsageError(fmt::format("--under {}: not an existing directory", dir));
    }
    CheckedCopy(state->scopes[state->scope_count++], inject::kPathCapacity, resolved, "--under");
  }
  if (args.faults.size() > inject::kMaxRules) {
    throw UsageError(fmt::format("at most {} --fault rules", inject::kMaxRules));
  }
  for (const std::string& text : args.faults) {
    char error[1024];
    if (!ParseFaultRule(text, &state->rules[state->rule_count++], error, sizeof(error))) {
      throw UsageError(fmt::format("--fault '{}': {}", text, error));
    }
  }
  if (!args.quota.empty()) {
    const std::optional<uint64_t> quota = ParseQuota(args.quota);
    if (!quota) throw UsageError("--quota " + args.quota + ": bytes with an optional K, M or G");
    state->quota = *quota;
  }
  if (!args.trace.empty()) {
    const fs::path trace = fs::absolute(args.trace);
    const int fd = open(trace.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw UsageError(fmt::format("--trace {}: {}", args.trace, std::strerror(errno)));
    const int error = HandTo(fd, args.share_with);
    close(fd);
    if (error != 0) throw UsageError(ShareError(args.share_with, "--trace " + args.trace, error));
    CheckedCopy(state->trace_path, inject::kPathCapacity, trace.string(), "--trace");
  }
  CheckedCopy(state->preload_path, inject::kPathCapacity, shim, "the shim's path");
  CheckedCopy(state->state_path, inject::kPathCapacity, state_path, "the state path");
}

// A state file in /dev/shm (or TMPDIR), mapped. Removed by the destructor.
class StateFile {
 public:
  explicit StateFile(const std::string& share_with) {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp != nullptr ? tmp : "/tmp");
    path_ = dir + "/spillway-inject-XXXXXX";
    const int fd = mkstemp(path_.data());
    if (fd < 0) throw UsageError(fmt::format("cannot create a state file in {}", dir));
    // Mode 0600 (mkstemp's): only the caller, and with --share-with the user it is handed
    // to, can change the run's counters.
    if (const int error = HandTo(fd, share_with); error != 0) {
      close(fd);
      unlink(path_.c_str());
      throw UsageError(ShareError(share_with, "the state file " + path_, error));
    }
    if (ftruncate(fd, sizeof(SharedState)) == 0) {
      void* map = mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) state_ = new (map) SharedState();
    }
    close(fd);
    if (state_ == nullptr) throw UsageError("cannot map the state file " + path_);
  }
  ~StateFile() {
    munmap(state_, sizeof(SharedState));
    unlink(path_.c_str());
  }
  StateFile(const StateFile&) = delete;
  StateFile& operator=(const StateFile&) = delete;
  SharedState* state() { return state_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  SharedState* state_ = nullptr;
};

[[noreturn]] void ExecProgram(const std::vector<std::string>& command, const std::string& shim,
                              const std::string& state_path) {
  const char* old = std::getenv("LD_PRELOAD");
  const std::string preload = old != nullptr && *old != '\0' ? shim + ":" + old : shim;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv(inject::kStateEnv, state_path.c_str(), 1);
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "spillway inject: cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

// Waits for `pid`; on timeout terminates its process group. Returns the exit status as
// docs/inject.md defines it (the program's, 128+signal, or 124).
int WaitForProgram(pid_t pid, double timeout) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  bool timed_out = false;
  if (timeout > 0 && pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    const int ms = static_cast<int>(std::min(timeout * 1000.0, double{INT_MAX}));
    int ready;
    while ((ready = poll(&p, 1, ms)) < 0 && errno == EINTR) {
    }
    if (ready == 0) {
      timed_out = true;
      kill(-pid, SIGTERM);
      p.revents = 0;
      if (poll(&p, 1, 2000) == 0) kill(-pid, SIGKILL);
    }
  }
  if (pidfd >= 0) close(pidfd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return 124;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int RunProgram(const InjectArgs& args, const std::string& shim, const std::string& state_path) {
  // Like system(3): interrupts reach the program, and the summary still follows.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    if (args.timeout > 0) setpgid(0, 0);  // So that the timeout ends its children too.
    ExecProgram(args.command, shim, state_path);
  }
  const int status = pid < 0 ? 127 : WaitForProgram(pid, args.timeout);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return status;
}

nlohmann::json Summary(const SharedState& state, int status,
                       const std::vector<std::map<std::string, uint64_t>>& before) {
  nlohmann::json calls = nlohmann::json::object();
  for (int op = 0; op < kFaultOpCount; ++op) {
    if (state.calls[op] != 0) calls[FaultOpName(static_cast<FaultOp>(op))] = state.calls[op];
  }
  nlohmann::json faults = nlohmann::json::array();
  const uint64_t recorded = std::min<uint64_t>(state.fault_count, inject::kMaxFaultRecords);
  for (uint64_t i = 0; i < recorded; ++i) {
    const inject::FaultRecord& f = state.faults[i];
    faults.push_back({{"op", FaultOpName(static_cast<FaultOp>(f.op))},
                      {"errno", ErrnoSymbol(f.error_number)},
                      {"path", f.path},
                      {"pid", f.pid}});
  }
  nlohmann::json leftovers = nlohmann::json::array();
  for (uint32_t i = 0; i < state.scope_count; ++i) {
    for (const auto& [rel, size] : Snapshot(state.scopes[i])) {
      if (before[i].count(rel) == 0) {
        leftovers.push_back({{"path", (fs::path(state.scopes[i]) / rel).string()}, {"size", size}});
      }
    }
  }
  return {{"exit", status},
          {"calls", calls},
          {"faults_injected", state.fault_count},
          {"faults", faults},
          {"leftovers", leftovers}};
}

void PrintSummary(const nlohmann::json& summary) {
  std::string calls;
  for (const auto& [op, n] : summary["calls"].items()) {
    calls += fmt::format("{}{} {}", calls.empty() ? "" : ", ", op, n.get<uint64_t>());
  }
  std::fprintf(stderr, "spillway inject: exit %d; in-scope calls: %s\n", summary["exit"].get<int>(),
               calls.empty() ? "none" : calls.c_str());
  std::fprintf(stderr, "spillway inject: %llu fault(s) injected\n",
               static_cast<unsigned long long>(summary["faults_injected"].get<uint64_t>()));
  for (const auto& f : summary["faults"]) {
    std::fprintf(stderr, "  %s %s %s (pid %d)\n", f["op"].get<std::string>().c_str(),
                 f["errno"].get<std::string>().c_str(), f["path"].get<std::string>().c_str(),
                 f["pid"].get<int>());
  }
  std::fprintf(stderr, "spillway inject: %zu leftover(s)\n", summary["leftovers"].size());
  for (const auto& l : summary["leftovers"]) {
    std::fprintf(stderr, "  %s (%llu bytes)\n", l["path"].get<std::string>().c_str(),
                 static_cast<unsigned long long>(l["size"].get<uint64_t>()));
  }
}

// Runs the program under the shim. Throws UsageError for bad input, before it starts.
int Inject(const InjectArgs& args) {
  const std::optional<std::string> shim = FindShim();
  if (!shim) throw UsageError(fmt::format("cannot find {} next to spillway", kShimName));
  const std::optional<std::string> program = FindProgram(args.command.front());
  if (!program) throw UsageError("command not found: " + args.command.front());
  if (std::string why = WhyNotInterposable(*program); !why.empty()) throw UsageError(why);
  StateFile file(args.share_with);
  FillState(args, file.state(), *shim, file.path());
  std::vector<std::map<std::string, uint64_t>> before;
  for (uint32_t i = 0; i < file.state()->scope_count; ++i) {
    before.push_back(Snapshot(file.state()->scopes[i]));
    file.state()->quota_used += TotalBytes(before.back());
  }
  const int status = RunProgram(args, *shim, file.path());
  if (!args.trace.empty() && !args.no_symbolize) SymbolizeTraceFrames(file.state()->trace_path);
  const nlohmann::json summary = Summary(*file.state(), status, before);
  if (args.json) {
    std::printf("%s\n", summary.dump().c_str());
  } else {
    PrintSummary(summary);
  }
  return status;
}

}  // namespace

void AddInjectCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InjectArgs>();
  CLI::App* sub = app.add_subcommand(
      "inject", "Run a program with fault rules applied to its file calls under --under dirs");
  // One value per flag, so that the program's own options after `--` stay its own.
  sub->add_option("--under", args->under, "A scope directory (repeatable)")
      ->required()
      ->allow_extra_args(false);
  sub->add_option("--fault", args->faults,
                  "OP ERRNO [site=ID] [nth=K] [after=N] [times=K|forever] [then=site|any] "
                  "[path=GLOB] [probability=P] (repeatable; tried in order)")
      ->allow_extra_args(false);
  sub->add_option("--quota", args->quota, "The scopes hold at most SIZE bytes (K, M, G)");
  sub->add_option("--seed", args->seed, "Seeds the rules' probability= draws (default 0)");
  sub->add_option("--trace", args->trace,
                  "Write one JSON line per in-scope call, and one per call site, to FILE");
  sub->add_flag("--no-symbolize", args->no_symbolize,
                "Leave the trace's frames unsymbolized (no addr2line after the run)");
  sub->add_flag("--json", args->json, "Print the summary as one JSON object on stdout");
  sub->add_option("--timeout", args->timeout, "Stop the program after SECONDS (exit 124)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--share-with", args->share_with,
                  "Hand the run's state and trace files to USER, for a program that switches "
                  "to that user (needs root)");
  sub->add_option("command", args->command, "-- CMD [ARG]...")->required();
  sub->callback([args, &exit_code] { exit_code = Inject(*args); });
}

}  // namespace spillway::tools
