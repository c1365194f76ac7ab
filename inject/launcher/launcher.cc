// inject::Run: fills the shared state file (inject/shared_state.h) that every process of
// the run maps, snapshots the scopes, spawns the program with the shim preloaded, waits,
// and reads the outcome from the state file and the scopes.
#include "spillway/inject/launcher.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "program_check.h"
#include "shared_state.h"
#include "spillway/vfs/fault_rules.h"
#include "trace_symbols.h"

extern char** environ;

namespace spillway::inject {
namespace {

namespace fs = std::filesystem;

using Entries = std::map<std::string, uint64_t>;  // Relative path -> size, directories 0.

// Every entry under `dir`. Its path relative to `dir` is the iterator's path without the
// `dir/` it starts with: fs::relative would resolve both paths, a readlink per component
// of every entry, at every run.
Entries Snapshot(const std::string& dir) {
  Entries entries;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    const std::string& path = it->path().native();
    const size_t prefix = dir.size() + (dir.ends_with('/') ? 0 : 1);
    const bool regular = it->is_regular_file(ec);
    entries[path.substr(std::min(prefix, path.size()))] = regular ? it->file_size(ec) : 0;
  }
  return entries;
}

uint64_t TotalBytes(const Entries& entries) {
  uint64_t total = 0;
  for (const auto& [path, size] : entries) total += size;
  return total;
}

Status CheckedCopy(char* out, size_t capacity, const std::string& value, const char* what) {
  if (value.size() >= capacity) {
    return Status::InvalidArgument(fmt::format("{} is too long: {}", what, value));
  }
  std::memcpy(out, value.c_str(), value.size() + 1);
  return OkStatus();
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

Status ShareError(const std::string& user, const std::string& what, int error) {
  if (error == ENOENT)
    return Status::InvalidArgument(fmt::format("--share-with {}: no such user", user));
  return Status::InvalidArgument(fmt::format("--share-with {}: cannot hand {} to the user: {}{}",
                                             user, what, std::strerror(error),
                                             error == EPERM ? " (it needs root)" : ""));
}

// Fills the state from the invocation.
Status FillState(const Invocation& inv, SharedState* state, const std::string& shim,
                 const std::string& state_path) {
  state->magic = kStateMagic;
  state->size = sizeof(SharedState);
  state->seed = inv.seed;
  if (inv.under.size() > kMaxScopes) {
    return Status::InvalidArgument(fmt::format("at most {} --under directories", kMaxScopes));
  }
  for (const std::string& dir : inv.under) {
    char resolved[PATH_MAX];
    struct stat st;
    if (realpath(dir.c_str(), resolved) == nullptr || stat(resolved, &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(fmt::format("--under {}: not an existing directory", dir));
    }
    SPILLWAY_RETURN_IF_ERROR(
        CheckedCopy(state->scopes[state->scope_count++], kPathCapacity, resolved, "--under"));
  }
  if (inv.faults.size() > kMaxRules) {
    return Status::InvalidArgument(fmt::format("at most {} --fault rules", kMaxRules));
  }
  for (const std::string& text : inv.faults) {
    char error[1024];
    if (!ParseFaultRule(text, &state->rules[state->rule_count++], error, sizeof(error))) {
      return Status::InvalidArgument(fmt::format("--fault '{}': {}", text, error));
    }
  }
  state->quota = inv.quota;
  if (!inv.trace.empty()) {
    const fs::path trace = fs::absolute(inv.trace);
    const int fd = open(trace.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      return Status::InvalidArgument(
          fmt::format("--trace {}: {}", inv.trace, std::strerror(errno)));
    }
    const int error = HandTo(fd, inv.share_with);
    close(fd);
    if (error != 0) return ShareError(inv.share_with, "--trace " + inv.trace, error);
    SPILLWAY_RETURN_IF_ERROR(
        CheckedCopy(state->trace_path, kPathCapacity, trace.string(), "--trace"));
  }
  SPILLWAY_RETURN_IF_ERROR(
      CheckedCopy(state->preload_path, kPathCapacity, shim, "the shim's path"));
  return CheckedCopy(state->state_path, kPathCapacity, state_path, "the state path");
}

// A state file in /dev/shm (or TMPDIR) of sizeof(SharedState) bytes, and this thread's
// copy of it. The launcher does not map the file: it writes the part it fills before the
// run and reads the shim's part after it, since unmapping a file in a process of several
// threads (a sweep's) flushes the TLB of every core it runs on, at every run. Removed by
// the destructor.
class StateFile final {
 public:
  // Errors: kUnavailable when the file cannot be made; kInvalidArgument when it cannot be
  // handed to `share_with`.
  static StatusOr<std::unique_ptr<StateFile>> Make(const std::string& share_with) {
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir =
        access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp != nullptr ? tmp : "/tmp");
    std::unique_ptr<StateFile> file(new StateFile(dir + "/spillway-inject-XXXXXX"));
    file->fd_ = mkostemp(file->path_.data(), O_CLOEXEC);
    if (file->fd_ < 0) {
      file->path_.clear();
      return Status(StatusCode::kUnavailable, "cannot create a state file in " + dir);
    }
    // Mode 0600 (mkstemp's): only the caller, and with --share-with the user it is handed
    // to, can change the run's counters.
    if (const int error = HandTo(file->fd_, share_with); error != 0) {
      return ShareError(share_with, "the state file " + file->path_, error);
    }
    // The new file reads as zeros, every field's starting value but the unused fault
    // records' offset and bit, which the shim writes with each record. Writing the
    // defaults (a megabyte, most of it fault records' paths) would touch every page of the
    // file at every run.
    if (ftruncate(file->fd_, sizeof(SharedState)) != 0) {
      return Status(StatusCode::kUnavailable, fmt::format("cannot size the state file {}: {}",
                                                          file->path_, std::strerror(errno)));
    }
    // The copy's part before `calls` is the launcher's to fill: zero, as in the file.
    std::memset(static_cast<void*>(file->state_), 0, offsetof(SharedState, calls));
    return file;
  }
  ~StateFile() {
    if (fd_ >= 0) close(fd_);
    if (!path_.empty()) unlink(path_.c_str());
  }
  StateFile(const StateFile&) = delete;
  StateFile& operator=(const StateFile&) = delete;

  // The copy: the fields before `calls` filled by the caller, the rest valid after Read.
  SharedState* state() { return state_; }
  const std::string& path() const { return path_; }

  // Writes the copy's fields before `calls` (the invocation's, and the bytes the scopes
  // hold) to the file. Errors: kUnavailable.
  Status Write() {
    errno = 0;
    if (pwrite(fd_, state_, offsetof(SharedState, calls), 0) !=
        static_cast<ssize_t>(offsetof(SharedState, calls))) {
      return Unavailable("write");
    }
    return OkStatus();
  }

  // Reads what the shim changed into the copy: the counters, then the recorded faults.
  // Errors: kUnavailable.
  Status Read() {
    constexpr size_t kFrom = offsetof(SharedState, lock);
    constexpr size_t kCountersSize = offsetof(SharedState, faults) - kFrom;
    auto* bytes = reinterpret_cast<char*>(state_);
    errno = 0;
    if (pread(fd_, bytes + kFrom, kCountersSize, kFrom) != static_cast<ssize_t>(kCountersSize)) {
      return Unavailable("read");
    }
    const size_t size =
        std::min<uint64_t>(state_->fault_count, kMaxFaultRecords) * sizeof(FaultRecord);
    if (pread(fd_, state_->faults, size, offsetof(SharedState, faults)) !=
        static_cast<ssize_t>(size)) {
      return Unavailable("read");
    }
    return OkStatus();
  }

 private:
  explicit StateFile(std::string path) : path_(std::move(path)), state_(ThreadCopy()) {}

  // "cannot VERB the state file PATH: ERROR", after a call that set errno to 0 first; a
  // short count, which sets none, is reported as EIO.
  Status Unavailable(const char* verb) const {
    const int error = errno != 0 ? errno : EIO;
    return Status(StatusCode::kUnavailable, fmt::format("cannot {} the state file {}: {}", verb,
                                                        path_, std::strerror(error)));
  }

  // A copy per thread, made once: a megabyte allocated and freed at every run would be
  // mapped and unmapped at every run.
  static SharedState* ThreadCopy() {
    thread_local const std::unique_ptr<SharedState> copy = std::make_unique<SharedState>();
    return copy.get();
  }

  std::string path_;
  SharedState* state_;
  int fd_ = -1;
};

// SIGINT and SIGQUIT are ignored in this process while any of its programs runs, as
// system(3) does: an interrupt reaches the program, and the run still reports. The first
// run to start saves the dispositions, the last to end puts them back.
class IgnoreInterrupts final {
 public:
  IgnoreInterrupts() {
    const std::lock_guard<std::mutex> lock(Mutex());
    Saved& saved = SavedDispositions();
    if (saved.users++ == 0) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigaction(SIGINT, &ignore, &saved.interrupt);
      sigaction(SIGQUIT, &ignore, &saved.quit);
    }
    interrupt_ = saved.interrupt;
    quit_ = saved.quit;
  }
  ~IgnoreInterrupts() {
    const std::lock_guard<std::mutex> lock(Mutex());
    Saved& saved = SavedDispositions();
    if (--saved.users == 0) {
      sigaction(SIGINT, &saved.interrupt, nullptr);
      sigaction(SIGQUIT, &saved.quit, nullptr);
    }
  }
  IgnoreInterrupts(const IgnoreInterrupts&) = delete;
  IgnoreInterrupts& operator=(const IgnoreInterrupts&) = delete;

  // The signals the program must get back at their default, so that it has the
  // dispositions from before: those not ignored then (a handler is reset by exec anyway).
  sigset_t DefaultInChild() const {
    sigset_t set;
    sigemptyset(&set);
    if (interrupt_.sa_handler != SIG_IGN) sigaddset(&set, SIGINT);
    if (quit_.sa_handler != SIG_IGN) sigaddset(&set, SIGQUIT);
    return set;
  }

 private:
  struct Saved {
    int users = 0;
    struct sigaction interrupt {};
    struct sigaction quit {};
  };
  static std::mutex& Mutex() {
    static std::mutex mutex;
    return mutex;
  }
  static Saved& SavedDispositions() {
    static Saved saved;
    return saved;
  }

  struct sigaction interrupt_ {};
  struct sigaction quit_ {};
};

// The program's environment: this process's, with the shim first in LD_PRELOAD, the
// state file's path in kStateEnv, and SPILLWAY_INJECT_JAVA_FRAMES=0 without Java frames.
// Built before fork, so that the child only execs.
std::vector<std::string> ProgramEnvironment(const std::string& shim, const std::string& state_path,
                                            bool java_frames) {
  const std::string preload_key = "LD_PRELOAD=";
  const std::string state_key = std::string(kStateEnv) + "=";
  std::string preload = preload_key + shim;
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view var(*entry);
    if (var.starts_with(preload_key)) {
      if (var.size() > preload_key.size())
        preload += ":" + std::string(var.substr(preload_key.size()));
    } else if (!var.starts_with(state_key)) {
      env.emplace_back(var);
    }
  }
  env.push_back(std::move(preload));
  env.push_back(state_key + state_path);
  if (!java_frames) env.emplace_back("SPILLWAY_INJECT_JAVA_FRAMES=0");
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& words) {
  std::vector<char*> pointers;
  pointers.reserve(words.size() + 1);
  for (std::string& word : words) pointers.push_back(word.data());
  pointers.push_back(nullptr);
  return pointers;
}

// How the program is spawned: `fd` (1 or 2) sent to `path`, or fd 0 read from it, unless
// it is empty.
void RedirectInChild(posix_spawn_file_actions_t* actions, int fd, const std::string& path) {
  if (!path.empty()) {
    posix_spawn_file_actions_addopen(actions, fd, path.c_str(),
                                     fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
}

// A program that could not be started says so where its stderr would have gone.
void ReportNotStarted(const Invocation& inv, const char* program, int error) {
  std::FILE* err = inv.stderr_path.empty() ? stderr : std::fopen(inv.stderr_path.c_str(), "w");
  if (err == nullptr) return;
  std::fprintf(err, "spillway inject: cannot run %s: %s\n", program, std::strerror(error));
  if (err != stderr) std::fclose(err);
}

// Waits for `pid`; on timeout terminates its process group. Fills the outcome's exit
// status, signal and timeout.
void WaitForProgram(pid_t pid, double timeout, Outcome* outcome) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (timeout > 0 && pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    const int ms = static_cast<int>(std::min(timeout * 1000.0, double{INT_MAX}));
    int ready;
    while ((ready = poll(&p, 1, ms)) < 0 && errno == EINTR) {
    }
    if (ready == 0) {
      outcome->timed_out = true;
      kill(-pid, SIGTERM);
      p.revents = 0;
      if (poll(&p, 1, 2000) == 0) kill(-pid, SIGKILL);
    }
  }
  if (pidfd >= 0) close(pidfd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (outcome->timed_out) {
    outcome->exit_status = 124;
  } else {
    outcome->exit_status = outcome->signal != 0 ? 128 + outcome->signal : WEXITSTATUS(status);
  }
}

// Runs the program with the shim preloaded and waits for it.
void RunProgram(const Invocation& inv, const std::string& shim, const std::string& state_path,
                Outcome* outcome) {
  std::vector<std::string> args = inv.command;
  std::vector<std::string> env = ProgramEnvironment(shim, state_path, inv.java_frames);
  const std::vector<char*> argv = Pointers(args);
  const std::vector<char*> envp = Pointers(env);
  std::optional<IgnoreInterrupts> ignore;
  if (inv.ignore_interrupts) ignore.emplace();
  // posix_spawn, not fork: it copies none of this process's memory maps, which a sweep
  // running many programs from a large process would pay for at every run.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = 0;
  if (inv.timeout > 0) {  // Its own process group, so that the timeout ends its children too.
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  if (ignore) {
    const sigset_t defaults = ignore->DefaultInChild();
    flags |= POSIX_SPAWN_SETSIGDEF;
    posix_spawnattr_setsigdefault(&attr, &defaults);
  }
  posix_spawnattr_setflags(&attr, flags);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  RedirectInChild(&actions, 0, inv.stdin_path);
  RedirectInChild(&actions, 1, inv.stdout_path);
  RedirectInChild(&actions, 2, inv.stderr_path);
  std::fflush(nullptr);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (error != 0) {
    ReportNotStarted(inv, argv[0], error);
    outcome->exit_status = 127;
    return;
  }
  WaitForProgram(pid, inv.timeout, outcome);
}

// The calls, faults and leftovers, from the state after the run and the scopes' entries
// before it.
void ReadOutcome(const SharedState& state, const std::vector<Entries>& before, Outcome* outcome) {
  for (int op = 0; op < kFaultOpCount; ++op) {
    if (state.calls[op] != 0) {
      outcome->calls[FaultOpName(static_cast<FaultOp>(op))] = state.calls[op];
    }
  }
  for (uint32_t i = 0; i < state.rule_count; ++i) {
    outcome->rules.push_back({state.counters[i].matched, state.counters[i].failed});
  }
  outcome->faults_injected = state.fault_count;
  const uint64_t recorded = std::min<uint64_t>(state.fault_count, kMaxFaultRecords);
  for (uint64_t i = 0; i < recorded; ++i) {
    const FaultRecord& f = state.faults[i];
    const char* error = f.error_number != 0 ? ErrnoSymbol(f.error_number) : nullptr;
    outcome->faults.push_back({FaultOpName(static_cast<FaultOp>(f.op)), error ? error : "",
                               std::string(f.path, strnlen(f.path, sizeof(f.path))), f.pid, f.seq,
                               std::string(FaultActionName(f.action)), f.offset, f.bit,
                               f.lost_bytes});
  }
  for (uint32_t i = 0; i < state.scope_count; ++i) {
    for (const auto& [rel, size] : Snapshot(state.scopes[i])) {
      if (before[i].count(rel) == 0) {
        outcome->leftovers.push_back({(fs::path(state.scopes[i]) / rel).string(), size});
      }
    }
  }
}

}  // namespace

StatusOr<Outcome> Run(const Invocation& invocation) {
  if (invocation.command.empty()) return Status::InvalidArgument("no command to run");
  std::optional<std::string> shim =
      invocation.shim.empty() ? FindShim() : std::optional(invocation.shim);
  if (!shim) {
    return Status::InvalidArgument(fmt::format("cannot find {} next to spillway", kShimName));
  }
  if (!invocation.shim.empty() && access(shim->c_str(), R_OK) != 0) {
    return Status::InvalidArgument(fmt::format("cannot read the shim {}", *shim));
  }
  const std::optional<std::string> program = FindProgram(invocation.command.front());
  if (!program) return Status::InvalidArgument("command not found: " + invocation.command.front());
  if (std::string why = WhyNotInterposable(*program); !why.empty()) {
    return Status::InvalidArgument(why);
  }
  StatusOr<std::unique_ptr<StateFile>> file = StateFile::Make(invocation.share_with);
  if (!file.ok()) return file.status();
  SharedState* state = (*file)->state();
  SPILLWAY_RETURN_IF_ERROR(FillState(invocation, state, *shim, (*file)->path()));
  std::vector<Entries> before;
  for (uint32_t i = 0; i < state->scope_count; ++i) {
    before.push_back(Snapshot(state->scopes[i]));
    state->quota_used += TotalBytes(before.back());
  }
  SPILLWAY_RETURN_IF_ERROR((*file)->Write());
  Outcome outcome;
  RunProgram(invocation, *shim, (*file)->path(), &outcome);
  if (!invocation.trace.empty() && invocation.symbolize) SymbolizeTraceFrames(state->trace_path);
  SPILLWAY_RETURN_IF_ERROR((*file)->Read());
  ReadOutcome(*state, before, &outcome);
  return outcome;
}

std::optional<uint64_t> ParseQuota(std::string_view text) {
  static constexpr std::pair<char, int> kSuffixes[] = {{'K', 10}, {'M', 20}, {'G', 30}};
  std::string digits(text);
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

nlohmann::json SummaryJson(const Outcome& outcome) {
  nlohmann::json calls = nlohmann::json::object();
  for (const auto& [op, count] : outcome.calls) calls[op] = count;
  nlohmann::json faults = nlohmann::json::array();
  for (const ProgramFault& f : outcome.faults) {
    nlohmann::json fault = {{"op", f.op},     {"action", f.action}, {"errno", nullptr},
                            {"path", f.path}, {"pid", f.pid},       {"seq", f.seq}};
    if (!f.error.empty()) fault["errno"] = f.error;
    // The damage a corrupt or lost rule did: where, and which bit or how many bytes.
    if (f.action == "corrupt" || f.action == "lost") {
      fault["offset"] = f.offset >= 0 ? nlohmann::json(f.offset) : nlohmann::json(nullptr);
    }
    if (f.action == "corrupt") fault["bit"] = f.bit;
    if (f.action == "lost") fault["lost_bytes"] = f.lost_bytes;
    faults.push_back(std::move(fault));
  }
  nlohmann::json leftovers = nlohmann::json::array();
  for (const Leftover& l : outcome.leftovers) {
    leftovers.push_back({{"path", l.path}, {"size", l.size}});
  }
  return {{"exit", outcome.exit_status},
          {"calls", calls},
          {"faults_injected", outcome.faults_injected},
          {"faults", faults},
          {"leftovers", leftovers}};
}

}  // namespace spillway::inject
