#include "spillway/vfs/fault_injecting_file_system.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <deque>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <utility>

#include "op_kind_internal.h"
#include "spillway/vfs/fault_rules.h"
#include "spillway/vfs/glob.h"

namespace spillway {
namespace {

// True when `glob` matches only itself (glob.h): it is not empty and has no wildcard.
bool IsOnePath(std::string_view glob) {
  return !glob.empty() && glob.find_first_of("*?") == std::string_view::npos;
}

}  // namespace

// Everything the faults depend on, behind one mutex. Shared by the filesystem and every
// file wrapper it hands out.
class FaultInjectingFileSystem::State {
 public:
  explicit State(uint64_t seed) : seed_(seed), rng_(seed) {}

  // What Check asks the caller to do to a call it lets through: kFail when nothing.
  struct Damage {
    FaultAction action = FaultAction::kFail;
    uint64_t draw = 0;  // For kCorrupt: FaultDamagePoint's draw.
  };

  void AddRule(const FaultRule& rule) {
    assert(rule.path_glob.size() < kFaultGlobCapacity);
    // The engine matches op codes; this filesystem's codes are its OpKind values.
    FaultRuleSpec spec;
    spec.op_code = rule.op.has_value() ? static_cast<uint8_t>(*rule.op) : kFaultAnyOp;
    spec.action = rule.action;
    spec.error_number = rule.error_number;
    spec.after = rule.after;
    spec.forever = !rule.times.has_value();
    spec.times = rule.times.value_or(0);
    rule.path_glob.copy(spec.path_glob, kFaultGlobCapacity - 1);
    spec.site = rule.site;
    spec.then_any_site = rule.then_any_site;
    spec.delay_ms = rule.delay_ms;
    auto live = std::make_shared<LiveRule>(LiveRule{spec, {}, rules_added_++});
    if (FaultRuleSpent(live->spec, live->counters)) return;  // times == 0: fails nothing.
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t k = 0; k < rules_by_kind_.size(); ++k) {
      const OpKind kind = static_cast<OpKind>(k);
      const bool any_matches =
          rule.action != FaultAction::kFail || OpKindCanReturn(kind, rule.error_number);
      if (rule.op.has_value() ? *rule.op == kind : any_matches) {
        rules_by_kind_[k].push_back(live);
      }
    }
  }

  void SetRandomFaults(std::optional<OpKind> op, int error_number, uint32_t one_in) {
    assert(one_in == 0 || error_number != 0);
    std::lock_guard<std::mutex> lock(mu_);
    random_op_ = op;
    random_error_ = error_number;
    random_one_in_ = one_in;
  }

  // Adds a pending short write; `exists` when its glob names one existing file. It is for
  // a file when it names one that exists or that a wrapper is open on. Returns the paths of
  // the pending short writes made for files, to be checked for ones that are gone
  // (DropShortWrites), when enough have accumulated since the last check (twice as many as
  // it kept, so that checking costs O(1) per short write added); else none.
  std::vector<std::string> AddShortWrite(std::string path_glob, uint64_t bytes, bool exists) {
    std::lock_guard<std::mutex> lock(mu_);
    const bool for_file = exists || (IsOnePath(path_glob) && open_files_.contains(path_glob));
    const PendingWrite pending{next_short_write_++, bytes, for_file};
    if (IsOnePath(path_glob)) {
      by_path_[std::move(path_glob)].push_back(pending);
      ++by_path_count_;
    } else {
      wildcard_writes_.emplace_back(std::move(path_glob), pending);
    }
    std::vector<std::string> due;
    if (by_path_count_ < std::max<size_t>(kShortWritesChecked, 2 * by_path_kept_)) return due;
    for (const auto& [path, writes] : by_path_) {
      if (std::any_of(writes.begin(), writes.end(), [](const auto& w) { return w.for_file; })) {
        due.push_back(path);
      }
    }
    by_path_kept_ = by_path_count_;  // Until DropShortWrites says otherwise.
    return due;
  }

  // Drops the pending short writes made for the files at `gone` (paths where no file
  // exists) that no wrapper is open on: their files are gone, so they can never apply. A
  // file removed while a wrapper is open on it still takes writes through that wrapper
  // (as an unlinked file does on Linux), so its short writes are kept.
  void DropShortWrites(const std::vector<std::string>& gone) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& path : gone) {
      if (open_files_.contains(path)) continue;
      auto it = by_path_.find(path);
      if (it == by_path_.end()) continue;
      by_path_count_ -= std::erase_if(it->second, [](const auto& w) { return w.for_file; });
      if (it->second.empty()) by_path_.erase(it);
    }
    by_path_kept_ = by_path_count_;
  }

  void ClearFaults() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& rules : rules_by_kind_) rules.clear();
    random_one_in_ = 0;
    by_path_.clear();
    by_path_count_ = 0;
    by_path_kept_ = 0;
    wildcard_writes_.clear();
  }

  // A wrapper for the file at `path` was made (FileOpened) or destroyed (FileClosed). While
  // one lives, its writes can take the short writes pending for that path.
  void FileOpened(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    ++open_files_[path];
  }
  void FileClosed(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = open_files_.find(path);
    if (it != open_files_.end() && --it->second == 0) open_files_.erase(it);
  }

  uint64_t calls(OpKind kind) const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[OpKindIndex(kind)];
  }

  uint64_t total_calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t total = 0;
    for (uint64_t n : calls_) total += n;
    return total;
  }

  void ResetCounters() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.fill(0);
    injected_.clear();
  }

  std::vector<InjectedFault> injected() const {
    std::lock_guard<std::mutex> lock(mu_);
    return injected_;
  }

  bool killed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return killed_.has_value();
  }

  // Counts a call of `kind` on `path` and decides its fate: OK lets it through, anything
  // else is the error to return instead of calling the target. *through_any (if given) is
  // set when a rule or random fault for every kind ("any") chose the error. delay= waits
  // outside the lock. *damage (if given): what a corrupt or lost rule asks of the call.
  Status Check(OpKind kind, const std::string& path, bool* through_any = nullptr,
               Damage* damage = nullptr) {
    uint32_t delay_ms = 0;
    Damage decided;
    Status status = CheckLocked(kind, path, through_any, &delay_ms, &decided);
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    if (damage != nullptr) *damage = decided;
    return status;
  }

  // Records what the caller did for a corrupt or lost rule.
  void RecordDamage(InjectedFault fault) {
    std::lock_guard<std::mutex> lock(mu_);
    injected_.push_back(std::move(fault));
  }

 private:
  Status CheckLocked(OpKind kind, const std::string& path, bool* through_any, uint32_t* delay_ms,
                     Damage* damage) {
    std::lock_guard<std::mutex> lock(mu_);
    if (killed_.has_value()) return *killed_;  // A dead process makes no calls.
    ++calls_[OpKindIndex(kind)];
    // The engine decides each rule that can match this kind, in the order added, as
    // DecideFault would over all of them: a rule of another kind would not count the call.
    std::vector<std::shared_ptr<LiveRule>>& rules = rules_by_kind_[OpKindIndex(kind)];
    for (size_t i = 0; i < rules.size(); ++i) {
      LiveRule& rule = *rules[i];
      if (!DecideFaultRule(rule.spec, &rule.counters, static_cast<uint8_t>(kind), path,
                           kFaultNoSite, /*seed=*/0, &rule_draws_, &AnyRuleMatches)) {
        continue;
      }
      const bool any = rule.spec.op_code == kFaultAnyOp;
      if (through_any != nullptr) *through_any = any;
      // Copied: dropping the rule below may destroy it.
      const FaultAction action = rule.spec.action;
      const int error_number = rule.spec.error_number;
      *delay_ms = rule.spec.delay_ms;
      const uint64_t draw = FaultDamageDraw(seed_, rule.index, rule.counters.failed);
      // A spent rule can never fail a call again: drop it, so that calls do not keep
      // trying the rules of a long run.
      if (FaultRuleSpent(rule.spec, rule.counters)) DropRuleLocked(rules[i], any);
      switch (action) {
        case FaultAction::kFail:
          return InjectLocked(kind, path, error_number);
        case FaultAction::kKill:
          injected_.push_back(InjectedFault{kind, path, 0, 0, FaultAction::kKill});
          killed_ = Status(StatusCode::kAborted,
                           std::string("killed at ") + std::string(OpKindName(kind)) + " " + path);
          return *killed_;
        case FaultAction::kCorrupt:
        case FaultAction::kLost:
          *damage = Damage{action, draw};
          return OkStatus();
        case FaultAction::kOk:
          return OkStatus();
      }
    }
    if (through_any != nullptr) *through_any = !random_op_.has_value();
    // A random fault, like an "any" rule, only reaches the calls that can return its errno.
    if (random_one_in_ != 0 && (!random_op_.has_value() || *random_op_ == kind) &&
        OpKindCanReturn(kind, random_error_)) {
      // Plain modulo rather than a distribution: mt19937_64's output is fixed by the
      // standard, so a seed replays the same faults with any standard library.
      if (rng_() % random_one_in_ == 0) return InjectLocked(kind, path, random_error_);
    }
    return OkStatus();
  }

 public:
  // For an Append of `size` bytes to `path`: consumes the first pending short write whose
  // glob matches and returns how many bytes it lets through; nullopt when none matches.
  std::optional<uint64_t> TakeShortWrite(const std::string& path, uint64_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    // The first added of: the first pending for exactly this path, and the first whose
    // glob has wildcards and matches.
    auto named = by_path_.find(path);
    auto wild = std::find_if(wildcard_writes_.begin(), wildcard_writes_.end(), [&](const auto& w) {
      return w.first.empty() || GlobMatch(w.first, path);
    });
    const bool use_named =
        named != by_path_.end() &&
        (wild == wildcard_writes_.end() || named->second.front().seq < wild->second.seq);
    if (!use_named && wild == wildcard_writes_.end()) return std::nullopt;
    uint64_t bytes = 0;
    if (use_named) {
      bytes = named->second.front().bytes;
      named->second.pop_front();
      --by_path_count_;
      if (named->second.empty()) by_path_.erase(named);
    } else {
      bytes = wild->second.bytes;
      wildcard_writes_.erase(wild);
    }
    return std::min(bytes, size);
  }
  void RecordShortWrite(const std::string& path, uint64_t bytes_stored) {
    std::lock_guard<std::mutex> lock(mu_);
    injected_.push_back(InjectedFault{OpKind::kWrite, path, EIO, bytes_stored});
  }

 private:
  struct PendingWrite {
    uint64_t seq = 0;  // The order added.
    uint64_t bytes = 0;
    bool for_file = false;  // Its glob names one file that existed when it was added.
  };
  // A rule with its progress, listed under every kind it can match.
  struct LiveRule {
    FaultRuleSpec spec;
    FaultRuleCounters counters;
    size_t index = 0;  // The order added, for FaultDamageDraw.
  };
  // Pending short writes below this many are not checked for gone files.
  static constexpr size_t kShortWritesChecked = 64;

  // Removes `rule` from the lists of the kinds it can match. REQUIRES: mu_ held. `rule` is
  // taken by value: the caller's reference is an element of a list this erases from.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  void DropRuleLocked(std::shared_ptr<LiveRule> rule, bool any) {
    for (size_t k = 0; k < rules_by_kind_.size(); ++k) {
      if (any || rule->spec.op_code == k) std::erase(rules_by_kind_[k], rule);
    }
  }

  // The engine's filter for "any" rules; op codes here are OpKind values.
  static bool AnyRuleMatches(uint8_t op_code, int error_number) {
    return OpKindCanReturn(static_cast<OpKind>(op_code), error_number);
  }

  // REQUIRES: mu_ held.
  Status InjectLocked(OpKind kind, const std::string& path, int error_number) {
    injected_.push_back(InjectedFault{kind, path, error_number, 0});
    return Status::FromErrno(error_number, OpKindName(kind), path);
  }

  mutable std::mutex mu_;
  // For each kind, the rules that are not spent and can match its calls (of that kind, or
  // "any" with an errno it can return), in the order added. The engine (fault_rules.h)
  // decides them.
  std::array<std::vector<std::shared_ptr<LiveRule>>, kOpKindCount> rules_by_kind_;
  uint64_t rule_draws_ = 0;  // FaultRule has no probability; never advanced.
  size_t rules_added_ = 0;
  const uint64_t seed_;  // Also draws the corrupt rules' bytes and bits.
  std::optional<OpKind> random_op_;
  int random_error_ = 0;
  uint32_t random_one_in_ = 0;  // 0: no random faults.
  std::mt19937_64 rng_;
  // Pending short writes: those whose glob names one path, by path, and the others (glob,
  // write), each in the order added.
  std::unordered_map<std::string, std::deque<PendingWrite>> by_path_;
  size_t by_path_count_ = 0;
  size_t by_path_kept_ = 0;  // by_path_count_ after the last check for gone files.
  std::vector<std::pair<std::string, PendingWrite>> wildcard_writes_;
  std::unordered_map<std::string, size_t> open_files_;  // Live wrappers, by path.
  uint64_t next_short_write_ = 0;
  std::array<uint64_t, kOpKindCount> calls_{};
  std::vector<InjectedFault> injected_;
  // Set once a kill rule fired: what every later call returns.
  std::optional<Status> killed_;
};

// Checks every call against the shared state before it reaches the target's file.
// Destroying it destroys the target's file, whose implicit close is not counted.
class FaultInjectingFileSystem::File final : public WritableFile {
 public:
  File(std::shared_ptr<State> state, std::unique_ptr<WritableFile> target)
      : state_(std::move(state)), target_(std::move(target)) {
    state_->FileOpened(path());
  }
  ~File() override { state_->FileClosed(path()); }

  const std::string& path() const override { return target_->path(); }

  AppendResult Append(std::string_view data) override {
    State::Damage damage;
    Status fault = state_->Check(OpKind::kWrite, path(), nullptr, &damage);
    if (!fault.ok()) return AppendResult{0, std::move(fault)};
    if (damage.action != FaultAction::kFail) return AppendDamaged(data, damage);
    const std::optional<uint64_t> allowed = state_->TakeShortWrite(path(), data.size());
    if (!allowed.has_value()) return target_->Append(data);

    uint64_t stored = 0;
    if (*allowed > 0) {
      AppendResult prefix = target_->Append(data.substr(0, *allowed));
      // A real error on the prefix is the more useful answer; report it as it is.
      if (!prefix.status.ok()) return prefix;
      stored = prefix.bytes_written;
    }
    state_->RecordShortWrite(path(), stored);
    return AppendResult{stored, Status::FromErrno(EIO, "write", path())};
  }

  // A corrupt or lost Append stores the damaged data and reports full success.
  AppendResult AppendDamaged(std::string_view data, const State::Damage& damage) {
    StatusOr<uint64_t> size = target_->Size();
    if (!size.ok()) return AppendResult{0, size.status()};
    InjectedFault record{OpKind::kWrite, path()};
    AppendResult result =
        target_->Append(DamageData(data, damage.action, damage.draw, *size, &record));
    if (result.status.ok()) state_->RecordDamage(std::move(record));
    return result;
  }

  Status Sync() override {
    SPILLWAY_RETURN_IF_ERROR(state_->Check(OpKind::kSync, path()));
    return target_->Sync();
  }

  StatusOr<uint64_t> Size() override {
    SPILLWAY_RETURN_IF_ERROR(state_->Check(OpKind::kSize, path()));
    return target_->Size();
  }

  Status Close() override {
    SPILLWAY_RETURN_IF_ERROR(state_->Check(OpKind::kClose, path()));
    return target_->Close();
  }

 private:
  const std::shared_ptr<State> state_;
  const std::unique_ptr<WritableFile> target_;
};

std::shared_ptr<FaultInjectingFileSystem> NewFaultInjectingFileSystem(
    std::shared_ptr<FileSystem> target, uint64_t seed) {
  // Not make_shared: the constructor is private.
  return std::shared_ptr<FaultInjectingFileSystem>(
      new FaultInjectingFileSystem(std::move(target), seed));
}

FaultInjectingFileSystem::FaultInjectingFileSystem(std::shared_ptr<FileSystem> target,
                                                   uint64_t seed)
    : FileSystemWrapper(std::move(target)), state_(std::make_shared<State>(seed)) {}

FaultInjectingFileSystem::~FaultInjectingFileSystem() = default;

void FaultInjectingFileSystem::AddRule(const FaultRule& rule) {
  // A rule Linux could not honour is rejected: it would never fire on a real system.
  if (CheckFaultRule(rule).ok()) state_->AddRule(rule);
}

Status FaultInjectingFileSystem::TryAddRule(const FaultRule& rule) {
  SPILLWAY_RETURN_IF_ERROR(CheckFaultRule(rule));
  state_->AddRule(rule);
  return OkStatus();
}

Status FaultInjectingFileSystem::AddRuleText(std::string_view text) {
  FaultRuleSpec spec;
  char error[1024];
  if (!ParseFaultRule(text, &spec, error, sizeof(error))) return Status::InvalidArgument(error);
  if (spec.probability != 1.0) {
    return Status::InvalidArgument("probability= is not taken here (see SetRandomFaults)");
  }
  FaultRule rule;
  if (spec.op_code != kFaultAnyOp) {
    // The engine's op codes are FaultOp values; this filesystem's are OpKind values.
    rule.op = OpKindOfFaultOp(static_cast<FaultOp>(spec.op_code));
    if (!rule.op.has_value()) {
      return Status::InvalidArgument(std::string(FaultOpName(static_cast<FaultOp>(spec.op_code))) +
                                     ": a FileSystem has no such call");
    }
  }
  rule.action = spec.action;
  rule.error_number = spec.error_number;
  rule.after = spec.after;
  rule.times = spec.forever ? std::nullopt : std::optional<uint64_t>(spec.times);
  rule.path_glob = spec.path_glob;
  rule.site = spec.site;
  rule.then_any_site = spec.then_any_site;
  rule.delay_ms = spec.delay_ms;
  return TryAddRule(rule);
}

void FaultInjectingFileSystem::SetRandomFaults(std::optional<OpKind> op, int error_number,
                                               uint32_t one_in) {
  state_->SetRandomFaults(op, error_number, one_in);
}

void FaultInjectingFileSystem::AddShortWrite(std::string path_glob, uint64_t bytes) {
  // A glob without wildcards names one path; if a file is there (or a wrapper is open on
  // one), the short write is for it.
  const bool exists = IsOnePath(path_glob) && target().Exists(path_glob);
  std::vector<std::string> due = state_->AddShortWrite(std::move(path_glob), bytes, exists);
  if (due.empty()) return;
  // Outside the lock, as every call to the target: which of those files are gone.
  std::sort(due.begin(), due.end());
  due.erase(std::unique(due.begin(), due.end()), due.end());
  std::erase_if(due, [this](const std::string& path) { return target().Exists(path); });
  state_->DropShortWrites(due);
}

void FaultInjectingFileSystem::ClearFaults() { state_->ClearFaults(); }

uint64_t FaultInjectingFileSystem::calls(OpKind kind) const { return state_->calls(kind); }

uint64_t FaultInjectingFileSystem::total_calls() const { return state_->total_calls(); }

void FaultInjectingFileSystem::ResetCounters() { state_->ResetCounters(); }

std::vector<InjectedFault> FaultInjectingFileSystem::injected() const { return state_->injected(); }

bool FaultInjectingFileSystem::killed() const { return state_->killed(); }

Status FaultInjectingFileSystem::RemoveTreeFromOutside(const std::string& path) {
  return target().RemoveTree(path);
}

Status FaultInjectingFileSystem::SetPermissionsFromOutside(const std::string& path, uint32_t mode) {
  return target().SetPermissions(path, mode);
}

StatusOr<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::Wrap(
    StatusOr<std::unique_ptr<WritableFile>> file) {
  if (!file.ok()) return file;
  return std::unique_ptr<WritableFile>(std::make_unique<File>(state_, std::move(*file)));
}

Status FaultInjectingFileSystem::Removed(const std::string& path, Status fault) {
  // ENOENT states that the object is gone: remove it, and all under it, as a cleaner would.
  if (fault.IsErrno(ENOENT) && path != "/") (void)target().RemoveTree(path);
  return fault;
}

Status FaultInjectingFileSystem::CreateDir(const std::string& path) {
  Status fault = state_->Check(OpKind::kMkdir, path);
  if (fault.ok()) return target().CreateDir(path);
  if (fault.IsErrno(EEXIST)) (void)target().CreateDir(path);  // A racing process made it.
  return Removed(ParentPath(path), std::move(fault));
}

StatusOr<std::string> FaultInjectingFileSystem::CreateUniqueDir(const std::string& parent,
                                                                std::string_view prefix) {
  Status fault = state_->Check(OpKind::kMkdir, parent);
  if (fault.IsErrno(EEXIST)) {
    // Another process took the name first; mkdtemp(3) tries another name and succeeds.
    (void)target().CreateUniqueDir(parent, prefix);
    return target().CreateUniqueDir(parent, prefix);
  }
  if (!fault.ok()) return Removed(parent, std::move(fault));
  return target().CreateUniqueDir(parent, prefix);
}

StatusOr<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::CreateFile(
    const std::string& path) {
  Status fault = state_->Check(OpKind::kCreate, path);
  if (fault.ok()) return Wrap(target().CreateFile(path));
  if (fault.IsErrno(EEXIST)) (void)target().CreateFile(path);  // Made, and closed again.
  return Removed(ParentPath(path), std::move(fault));
}

StatusOr<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::CreateUniqueFile(
    const std::string& dir, std::string_view prefix) {
  Status fault = state_->Check(OpKind::kCreate, dir);
  if (fault.IsErrno(EEXIST)) {
    (void)target().CreateUniqueFile(dir, prefix);  // The racing process's file.
    return Wrap(target().CreateUniqueFile(dir, prefix));
  }
  if (!fault.ok()) return Removed(dir, std::move(fault));
  return Wrap(target().CreateUniqueFile(dir, prefix));
}

StatusOr<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenForAppend(
    const std::string& path) {
  SPILLWAY_RETURN_IF_ERROR(state_->Check(OpKind::kOpen, path));
  return Wrap(target().OpenForAppend(path));
}

StatusOr<std::string> FaultInjectingFileSystem::ReadFile(const std::string& path) {
  State::Damage damage;
  SPILLWAY_RETURN_IF_ERROR(state_->Check(OpKind::kRead, path, nullptr, &damage));
  StatusOr<std::string> data = target().ReadFile(path);
  if (damage.action != FaultAction::kCorrupt || !data.ok()) return data;
  InjectedFault record{OpKind::kRead, path};
  *data = DamageData(*data, FaultAction::kCorrupt, damage.draw, 0, &record);
  state_->RecordDamage(std::move(record));
  return data;
}

StatusOr<std::vector<DirEntry>> FaultInjectingFileSystem::ListDir(const std::string& path) {
  Status fault = state_->Check(OpKind::kList, path);
  if (!fault.ok()) return Removed(path, std::move(fault));
  return target().ListDir(path);
}

StatusOr<FileStat> FaultInjectingFileSystem::Stat(const std::string& path) {
  bool through_any = false;
  Status fault = state_->Check(OpKind::kStat, path, &through_any);
  if (fault.ok()) return target().Stat(path);
  // A stat rule's ENOENT is only an answer; through "any" it is a fact.
  return through_any ? Removed(path, std::move(fault)) : fault;
}

Status FaultInjectingFileSystem::RemoveFile(const std::string& path) {
  Status fault = state_->Check(OpKind::kRemove, path);
  if (!fault.ok()) return Removed(path, std::move(fault));
  return target().RemoveFile(path);
}

Status FaultInjectingFileSystem::RemoveDir(const std::string& path) {
  Status fault = state_->Check(OpKind::kRmdir, path);
  if (!fault.ok()) return Removed(path, std::move(fault));
  return target().RemoveDir(path);
}

Status FaultInjectingFileSystem::RemoveTree(const std::string& path) {
  return RemoveTreeGated(path, nullptr);
}

Status FaultInjectingFileSystem::RemoveTreeGated(const std::string& path,
                                                 const TreeStepGate& gate) {
  // The target walks the tree (through directory handles where it has them); each step is
  // checked and counted here first, as the call of its kind would be.
  return target().RemoveTreeGated(path, [this, &gate](TreeStep step, const std::string& p) {
    const OpKind kind = step == TreeStep::kList     ? OpKind::kList
                        : step == TreeStep::kRemove ? OpKind::kRemove
                                                    : OpKind::kRmdir;
    // An injected ENOENT makes its fact true (the object is gone) before it is returned.
    if (Status fault = state_->Check(kind, p); !fault.ok()) return Removed(p, std::move(fault));
    return gate != nullptr ? gate(step, p) : OkStatus();
  });
}

Status FaultInjectingFileSystem::SetPermissions(const std::string& path, uint32_t mode) {
  SPILLWAY_RETURN_IF_ERROR(state_->Check(OpKind::kChmod, path));
  return target().SetPermissions(path, mode);
}

}  // namespace spillway
