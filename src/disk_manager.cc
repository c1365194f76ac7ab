// DiskManager: DataFusion's DiskManager (datafusion/execution/src/disk_manager.rs) over a
// FileSystem, plus the accounting and spill directories its files share
// (spill_internal.h).
#include "spillway/spill/disk_manager.h"

#include <atomic>
#include <cassert>
#include <cerrno>
#include <mutex>
#include <optional>
#include <random>
#include <utility>

#include "spill_internal.h"
#include "upstream_text.h"

namespace spillway {
namespace internal {

// ---------------------------------------------------------------------------------------
// SpillAccounting

SpillAccounting::SpillAccounting(uint64_t limit, std::string limit_config_key, Quirks quirks,
                                 std::shared_ptr<CleanupLog> cleanup_log,
                                 std::shared_ptr<SpillBudget> budget)
    : ledger_(limit, std::move(limit_config_key)),
      quirks_(quirks),
      cleanup_log_(std::move(cleanup_log)),
      budget_(std::move(budget)) {
  assert(cleanup_log_ != nullptr);
}

Status SpillAccounting::Reserve(uint64_t bytes) {
  const std::optional<uint64_t> used = ledger_.TryReserve(bytes);
  if (!used.has_value()) {
    if (quirks_.Has(Quirk::kSpilledCountsRefused)) CountSpilled(bytes);
    return LimitError();
  }
  if (budget_ != nullptr && quirks_.Has(Quirk::kBudgetAfterAdd)) {
    // Charged first, checked after; a refusal gives the plan its bytes back, not the budget.
    if (budget_->ledger().Add(bytes) > budget_->ledger().limit()) {
      ledger_.Release(bytes);
      return budget_->LimitError();
    }
  } else if (budget_ != nullptr) {
    const std::optional<uint64_t> budget_used = budget_->ledger().TryReserve(bytes);
    if (!budget_used.has_value()) {
      ledger_.Release(bytes);  // The budget refused: the write counts in neither.
      return budget_->LimitError();
    }
    budget_->ledger().RaisePeak(*budget_used);
  }
  // Peaks are raised only for reservations that stand. Under concurrent writers a total
  // may include another writer's reservation that is then rolled back, so a peak is exact
  // for sequential writes and an upper bound within one in-flight write otherwise.
  ledger_.RaisePeak(*used);
  return OkStatus();
}

Status SpillAccounting::AddThenCheck(uint64_t bytes) {
  const bool over_plan = ledger_.Add(bytes) > ledger_.limit();
  const bool over_budget =
      budget_ != nullptr && budget_->ledger().Add(bytes) > budget_->ledger().limit();
  if (over_plan) return LimitError();
  return over_budget ? budget_->LimitError() : OkStatus();
}

void SpillAccounting::Release(uint64_t bytes) {
  ledger_.Release(bytes);
  if (budget_ != nullptr) budget_->ledger().Release(bytes);
}

void SpillAccounting::CountSpill() {
  ledger_.CountSpill();
  if (budget_ != nullptr) budget_->ledger().CountSpill();
}

void SpillAccounting::CountSpilled(uint64_t bytes) {
  if (bytes == 0) return;
  ledger_.CountSpilled(bytes);
  if (budget_ != nullptr) budget_->ledger().CountSpilled(bytes);
}

Status SpillAccounting::LimitError() const {
  return LimitExceededError(LimitExceededMessage(ledger_.limit(), ledger_.limit_config_key()));
}

// ---------------------------------------------------------------------------------------
// SpillDir

SpillDir::SpillDir(std::shared_ptr<FileSystem> fs, std::string path,
                   std::shared_ptr<CleanupLog> cleanup_log, std::unique_ptr<DirLock> lock)
    : lock_(std::move(lock)),
      fs_(std::move(fs)),
      path_(std::move(path)),
      cleanup_log_(std::move(cleanup_log)) {}

SpillDir::~SpillDir() {
  // TempDir's Drop: remove the directory and whatever is left in it. As for files, every
  // failure is recorded (ENOENT too: a cleaner's removal and a fault look the same).
  if (Status removed = fs_->RemoveTree(path_); !removed.ok()) cleanup_log_->Record(removed);
}

SpillDirSet::~SpillDirSet() {
  for (std::shared_ptr<SpillDir>& dir : dirs) dir.reset();
}

namespace {

// How often MakeSpillDir makes a new directory when a reaper took the one it made.
constexpr int kLockAttempts = 8;

bool ReapedWhileMade(const Status& lock_error) {
  return lock_error.IsErrno(EWOULDBLOCK) || lock_error.IsErrno(ENOENT);
}

}  // namespace

StatusOr<std::shared_ptr<SpillDir>> MakeSpillDir(const std::shared_ptr<FileSystem>& fs,
                                                 const std::string& parent, SpillDirKind kind,
                                                 const std::shared_ptr<CleanupLog>& log) {
  if (kind == SpillDirKind::kLocalDir) {
    // DataFusion: `if !Path::new(root).exists() { std::fs::create_dir(root)? }`. Only a
    // missing parent is created; any other Stat error (EACCES, ENOTDIR) is the answer.
    StatusOr<FileStat> stat = fs->Stat(parent);
    if (!stat.ok()) {
      if (!stat.status().IsErrno(ENOENT)) return stat.status();
      Status made = fs->CreateDir(parent);
      if (!made.ok() && !made.IsErrno(EEXIST)) return made;  // EEXIST: another plan won.
    }
  }
  const std::string_view prefix =
      kind == SpillDirKind::kLocalDir ? kSpillDirPrefix : kOsTmpDirPrefix;
  for (int attempt = 0;; ++attempt) {
    StatusOr<std::string> path = fs->CreateUniqueDir(parent, prefix);
    if (!path.ok()) return path.status();
    // Between the mkdir and the lock, a reaper may take the new directory for an orphan:
    // if it holds the lock now (EWOULDBLOCK) or has removed it (ENOENT), make another.
    StatusOr<std::unique_ptr<DirLock>> lock = fs->LockDir(*path);
    if (!lock.ok() && ReapedWhileMade(lock.status()) && attempt < kLockAttempts) continue;
    // A filesystem without locks (ENOTSUP), or a lock that keeps failing, leaves the
    // directory unlocked: spilling works as upstream's, without crash recovery.
    return std::make_shared<SpillDir>(fs, std::move(*path), log,
                                      lock.ok() ? std::move(*lock) : nullptr);
  }
}

}  // namespace internal

using internal::DisabledCreateMessage;
using internal::EscapeForTempFileNamePrefix;
using internal::kDisabledSetLimitMessage;
using internal::MakeSpillDir;
using internal::SpillAccounting;
using internal::SpillDir;
using internal::SpillDirKind;
using internal::SpillDirSet;
using internal::SpillFileAccess;
using internal::SpillFileState;

// ---------------------------------------------------------------------------------------
// DiskManager::Core: everything a DiskManager is. DiskManager is a handle to it.

struct DiskManager::Passkey {};

class DiskManager::Core final {
 public:
  Core(std::shared_ptr<FileSystem> fs, DiskManagerOptions options,
       std::shared_ptr<SpillAccounting> accounting, uint64_t seed)
      : fs_(std::move(fs)),
        options_(std::move(options)),
        accounting_(std::move(accounting)),
        rng_(seed) {}

  // kDirectories: makes one spill directory per local dir. On a failure the directories
  // made so far are dropped, which removes them (failures recorded), and the error is
  // returned.
  Status CreateLocalDirs() {
    std::vector<std::shared_ptr<SpillDir>> made;
    for (const std::string& local_dir : options_.local_dirs) {
      StatusOr<std::shared_ptr<SpillDir>> dir =
          MakeSpillDir(fs_, local_dir, SpillDirKind::kLocalDir, accounting_->cleanup_log());
      if (!dir.ok()) return dir.status();  // `made` goes out of scope: removed.
      made.push_back(std::move(*dir));
    }
    std::lock_guard<std::mutex> lock(mu_);
    dirs_->dirs = std::move(made);
    dirs_->parents = options_.local_dirs;
    return OkStatus();
  }

  StatusOr<SpillFile> CreateTempFile(std::string_view description) {
    switch (options_.mode) {
      case DiskManagerMode::kDisabled:
        return DisabledError(DisabledCreateMessage(description));
      case DiskManagerMode::kCustom:
        // Files come from the factory and count against its accounting, not ours.
        return options_.factory->CreateTempFile(description);
      case DiskManagerMode::kOsTmpDirectory:
      case DiskManagerMode::kDirectories:
        break;
    }

    size_t slot = 0;
    std::shared_ptr<SpillDir> dir;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (dirs_->dirs.empty()) {
        // kOsTmpDirectory creates its one directory on the first file (kDirectories made
        // its directories in Build, so dirs_ is never empty there).
        SPILLWAY_RETURN_IF_ERROR(CreateOsTmpDirLocked());
      }
      // Plain modulo rather than a distribution: mt19937_64's output is fixed by the
      // standard, so a seed picks the same directories with any standard library.
      slot = rng_() % dirs_->dirs.size();
      dir = dirs_->dirs[slot];
    }

    const std::string prefix = EscapeForTempFileNamePrefix(description);
    const bool count_leak = accounting_->quirks().Has(Quirk::kCountLeak);
    if (count_leak) accounting_->FileCreated();  // Counted before the file exists.

    StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile(dir->path(), prefix);
    if (!file.ok() && file.status().IsErrno(ENOENT) &&
        options_.missing_dir == MissingDirPolicy::kRecreate) {
      // The spill directory was removed from outside. Put a new one in its slot and try
      // once more; files already made keep the old SpillDir alive through their handles.
      StatusOr<std::shared_ptr<SpillDir>> fresh = ReplaceDir(slot, dir);
      if (!fresh.ok()) return fresh.status();
      dir = std::move(*fresh);
      file = fs_->CreateUniqueFile(dir->path(), prefix);
    }
    if (!file.ok()) return file.status();  // With kCountLeak the count stays raised.

    if (!count_leak) accounting_->FileCreated();
    accounting_->CountSpill();
    return SpillFileAccess::Make(std::make_shared<SpillFileState>(accounting_, std::move(dir),
                                                                  dirs_, fs_, std::move(*file)));
  }

  Status SetMaxTempDirectorySize(uint64_t bytes) {
    if (options_.mode == DiskManagerMode::kDisabled && bytes != 0) {
      return DisabledError(std::string(kDisabledSetLimitMessage));
    }
    accounting_->set_limit(bytes);
    return OkStatus();
  }

  std::vector<std::string> spill_dirs() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> paths;
    paths.reserve(dirs_->dirs.size());
    for (const std::shared_ptr<SpillDir>& dir : dirs_->dirs) paths.push_back(dir->path());
    return paths;
  }

  size_t max_spill_merge_fan_in() const { return max_spill_merge_fan_in_.load(); }
  void SetMaxSpillMergeFanIn(size_t files) { max_spill_merge_fan_in_.store(files); }

  DiskManagerMode mode() const { return options_.mode; }
  const SpillAccounting& accounting() const { return *accounting_; }

 private:
  // REQUIRES: mu_ held, mode kOsTmpDirectory, no directory yet.
  Status CreateOsTmpDirLocked() {
    const std::string parent = fs_->TempDir();
    StatusOr<std::shared_ptr<SpillDir>> dir =
        MakeSpillDir(fs_, parent, SpillDirKind::kOsTmpDir, accounting_->cleanup_log());
    if (!dir.ok()) return dir.status();
    dirs_->dirs.push_back(std::move(*dir));
    dirs_->parents.push_back(parent);
    return OkStatus();
  }

  // Replaces the directory in `slot`, which was `stale` when the caller found its directory
  // missing, with a new spill directory in the same parent, made as Build makes one. If another
  // thread already replaced it, uses that one. Returns the directory now in the slot.
  StatusOr<std::shared_ptr<SpillDir>> ReplaceDir(size_t slot,
                                                 const std::shared_ptr<SpillDir>& stale) {
    std::lock_guard<std::mutex> lock(mu_);
    if (dirs_->dirs[slot] != stale) return dirs_->dirs[slot];
    StatusOr<std::shared_ptr<SpillDir>> fresh =
        MakeSpillDir(fs_, dirs_->parents[slot],
                     options_.mode == DiskManagerMode::kDirectories ? SpillDirKind::kLocalDir
                                                                    : SpillDirKind::kOsTmpDir,
                     accounting_->cleanup_log());
    if (!fresh.ok()) return fresh.status();
    dirs_->dirs[slot] = *fresh;
    return fresh;
  }

  const std::shared_ptr<FileSystem> fs_;
  const DiskManagerOptions options_;
  const std::shared_ptr<SpillAccounting> accounting_;
  std::atomic<size_t> max_spill_merge_fan_in_{options_.max_spill_merge_fan_in};

  mutable std::mutex mu_;
  // The spill directories, one per slot: a local dir's (kDirectories), or the temp dir's
  // once the first file needed it (kOsTmpDirectory). Its contents are guarded by mu_;
  // files only hold it, to keep the directories alive.
  const std::shared_ptr<SpillDirSet> dirs_ = std::make_shared<SpillDirSet>();
  std::mt19937_64 rng_;  // Guarded by mu_.
};

namespace {

Status ValidateOptions(const DiskManagerOptions& options) {
  const bool directories = options.mode == DiskManagerMode::kDirectories;
  const bool custom = options.mode == DiskManagerMode::kCustom;
  if (directories && options.local_dirs.empty()) {
    return Status::InvalidArgument("kDirectories mode needs at least one local dir");
  }
  if (!directories && !options.local_dirs.empty()) {
    return Status::InvalidArgument("local dirs are only used in kDirectories mode");
  }
  if (custom && options.factory == nullptr) {
    return Status::InvalidArgument("kCustom mode needs a TempFileFactory");
  }
  if (!custom && options.factory != nullptr) {
    return Status::InvalidArgument("a TempFileFactory is only used in kCustom mode");
  }
  for (const std::string& dir : options.local_dirs) {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(dir));
  }
  return OkStatus();
}

// A seed for a manager built without one. Constructing a std::random_device is expensive
// (libstdc++ probes the CPU, which a hypervisor may trap: tens of microseconds), so each
// thread seeds one generator once and draws managers' seeds from it.
uint64_t RandomSeed() {
  thread_local std::mt19937_64 seeds = [] {
    std::random_device device;
    return std::mt19937_64((uint64_t{device()} << 32) | device());
  }();
  return seeds();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// DiskManager

StatusOr<std::shared_ptr<DiskManager>> DiskManager::Build(std::shared_ptr<FileSystem> fs,
                                                          DiskManagerOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("DiskManager::Build needs a FileSystem");
  SPILLWAY_RETURN_IF_ERROR(ValidateOptions(options));
  if (options.cleanup_log == nullptr) options.cleanup_log = std::make_shared<CleanupLog>();
  // A disabled manager's limit is 0, and only 0 can be set.
  const uint64_t limit =
      options.mode == DiskManagerMode::kDisabled ? 0 : options.max_temp_directory_size;
  auto accounting = std::make_shared<SpillAccounting>(
      limit, options.limit_config_key, options.quirks, options.cleanup_log, options.budget);
  const uint64_t seed = options.seed.value_or(RandomSeed());
  const bool directories = options.mode == DiskManagerMode::kDirectories;

  auto core =
      std::make_shared<Core>(std::move(fs), std::move(options), std::move(accounting), seed);
  if (directories) SPILLWAY_RETURN_IF_ERROR(core->CreateLocalDirs());
  return std::make_shared<DiskManager>(Passkey{}, std::move(core));
}

DiskManager::DiskManager(Passkey /*key*/, std::shared_ptr<Core> core) : core_(std::move(core)) {}

DiskManager::~DiskManager() = default;

StatusOr<SpillFile> DiskManager::CreateTempFile(std::string_view description) {
  return core_->CreateTempFile(description);
}

uint64_t DiskManager::used_disk_space() const { return core_->accounting().used(); }

uint64_t DiskManager::max_temp_directory_size() const { return core_->accounting().limit(); }

Status DiskManager::SetMaxTempDirectorySize(uint64_t bytes) {
  return core_->SetMaxTempDirectorySize(bytes);
}

SpillingProgress DiskManager::spilling_progress() const {
  const SpillAccounting& accounting = core_->accounting();
  return SpillingProgress{accounting.used(), accounting.active_files()};
}

bool DiskManager::tmp_files_enabled() const { return core_->mode() != DiskManagerMode::kDisabled; }

std::shared_ptr<CleanupLog> DiskManager::cleanup_log() const {
  return core_->accounting().cleanup_log();
}

size_t DiskManager::max_spill_merge_fan_in() const { return core_->max_spill_merge_fan_in(); }

void DiskManager::SetMaxSpillMergeFanIn(size_t files) { core_->SetMaxSpillMergeFanIn(files); }

DiskManagerMode DiskManager::mode() const { return core_->mode(); }

SpillMetrics DiskManager::metrics() const { return core_->accounting().metrics(); }

std::vector<std::string> DiskManager::spill_dirs() const { return core_->spill_dirs(); }

// ---------------------------------------------------------------------------------------
// DiskManagerBuilder. Each mode setter clears what the other modes use, so the last mode
// chosen wins, as with DataFusion's with_mode.

DiskManagerBuilder& DiskManagerBuilder::WithOsTmpDirectory() {
  options_.mode = DiskManagerMode::kOsTmpDirectory;
  options_.local_dirs.clear();
  options_.factory.reset();
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithDirectories(std::vector<std::string> local_dirs) {
  options_.mode = DiskManagerMode::kDirectories;
  options_.local_dirs = std::move(local_dirs);
  options_.factory.reset();
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithDisabled() {
  options_.mode = DiskManagerMode::kDisabled;
  options_.local_dirs.clear();
  options_.factory.reset();
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithFactory(std::shared_ptr<TempFileFactory> factory) {
  options_.mode = DiskManagerMode::kCustom;
  options_.local_dirs.clear();
  options_.factory = std::move(factory);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithMaxTempDirectorySize(uint64_t bytes) {
  options_.max_temp_directory_size = bytes;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithMaxSpillMergeFanIn(size_t files) {
  options_.max_spill_merge_fan_in = files;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithLimitConfigKey(std::string key) {
  options_.limit_config_key = std::move(key);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithMissingDirPolicy(MissingDirPolicy policy) {
  options_.missing_dir = policy;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithQuirks(Quirks quirks) {
  options_.quirks = quirks;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithSeed(uint64_t seed) {
  options_.seed = seed;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithCleanupLog(std::shared_ptr<CleanupLog> log) {
  options_.cleanup_log = std::move(log);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithBudget(std::shared_ptr<SpillBudget> budget) {
  options_.budget = std::move(budget);
  return *this;
}

StatusOr<std::shared_ptr<DiskManager>> DiskManagerBuilder::Build(
    std::shared_ptr<FileSystem> fs) const {
  return DiskManager::Build(std::move(fs), options_);
}

}  // namespace spillway
