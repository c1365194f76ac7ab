// DiskManager: DataFusion's DiskManager (datafusion/execution/src/disk_manager.rs) over a
// FileSystem. The accounting and spill directories its files share are in
// spill_accounting.cc and spill_dir.cc, where a new file goes in slot_chooser.cc.
#include "spillway/spill/disk_manager.h"

#include <atomic>
#include <cerrno>
#include <mutex>
#include <optional>
#include <random>
#include <utility>

#include "slot_chooser.h"
#include "spill_internal.h"
#include "upstream_text.h"

namespace spillway {

using internal::AllLocalDirsFailed;
using internal::DisabledCreateMessage;
using internal::EscapeForTempFileNamePrefix;
using internal::kDisabledSetLimitMessage;
using internal::LocalDirFailure;
using internal::MakeSpillDir;
using internal::SlotChooser;
using internal::SpillAccounting;
using internal::SpillDir;
using internal::SpillDirKind;
using internal::SpillDirSet;

std::string_view SpillDirLayoutName(SpillDirLayout layout) {
  return layout == SpillDirLayout::kAll ? "all" : "each";
}

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
        slots_(seed, options_.spill.failover) {}

  // kDirectories: sets up one slot per local dir. kAll makes every slot's directory now:
  // without failover, on a failure the directories made so far are dropped (which
  // removes them, failures recorded) and the error is returned; with failover, a slot
  // whose directory failed stays empty (avoided if IsLocalDirUnhealthy) unless every one
  // failed. kEach makes none.
  Status CreateLocalDirs() {
    const size_t n = options_.spill.local_dirs.size();
    std::vector<std::shared_ptr<SpillDir>> made(n);
    std::vector<bool> avoided(n, false);
    if (options_.spill.layout == SpillDirLayout::kAll) {
      std::vector<LocalDirFailure> failures;
      for (size_t slot = 0; slot < n; ++slot) {
        StatusOr<std::shared_ptr<SpillDir>> dir =
            MakeSpillDir(fs_, options_.spill.local_dirs[slot], SpillDirKind::kLocalDir,
                         accounting_->removal_log());
        if (dir.ok()) {
          made[slot] = std::move(*dir);
          continue;
        }
        if (!options_.spill.failover) return dir.status();  // `made` goes out of scope: removed.
        avoided[slot] = IsLocalDirUnhealthy(dir.status());
        failures.push_back({options_.spill.local_dirs[slot], dir.status()});
      }
      if (failures.size() == n) return AllLocalDirsFailed(failures);
    }
    std::lock_guard<std::mutex> lock(mu_);
    dirs_->dirs = std::move(made);
    dirs_->parents = options_.spill.local_dirs;
    slots_.SetSlots(std::move(avoided));
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
    StatusOr<std::vector<size_t>> slots = SlotsToTry();
    if (!slots.ok()) return slots.status();

    const std::string prefix = EscapeForTempFileNamePrefix(description);
    const bool count_leak = accounting_->quirks().Has(Quirk::kCountLeak);
    if (count_leak) accounting_->FileCreated();  // Counted before the file exists.

    std::vector<LocalDirFailure> failures;
    for (const size_t slot : *slots) {
      StatusOr<Placed> placed = CreateInSlot(slot, prefix);
      if (options_.spill.failover) MarkSlot(slot, placed.status());
      if (placed.ok()) {
        placed->dir->Own(BaseName(placed->file->path()));
        if (!count_leak) accounting_->FileCreated();
        accounting_->CountSpill();
        return SpillFile::Access::Make(std::make_shared<SpillFile::State>(
            accounting_, std::move(placed->dir), dirs_, fs_, std::move(placed->file)));
      }
      // With kCountLeak the count stays raised.
      if (!options_.spill.failover) return placed.status();
      failures.push_back({options_.spill.local_dirs[slot], placed.status()});
    }
    return AllLocalDirsFailed(failures);
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
    for (const std::shared_ptr<SpillDir>& dir : dirs_->dirs) {
      if (dir != nullptr) paths.push_back(dir->path());
    }
    return paths;
  }

  size_t max_spill_merge_fan_in() const { return max_spill_merge_fan_in_.load(); }
  void SetMaxSpillMergeFanIn(size_t files) { max_spill_merge_fan_in_.store(files); }

  DiskManagerMode mode() const { return options_.mode; }
  const SpillAccounting& accounting() const { return *accounting_; }

 private:
  // A new file and the spill directory it is in.
  struct Placed {
    std::shared_ptr<SpillDir> dir;
    std::unique_ptr<WritableFile> file;
  };

  // The slots a new file tries, in order (SlotChooser). kOsTmpDirectory makes its one
  // directory here, on the first file.
  StatusOr<std::vector<size_t>> SlotsToTry() {
    std::lock_guard<std::mutex> lock(mu_);
    if (dirs_->dirs.empty()) {
      // kOsTmpDirectory's first file (kDirectories has a slot per local dir from Build).
      SPILLWAY_RETURN_IF_ERROR(CreateOsTmpDirLocked());
    }
    return slots_.SlotsToTry();
  }

  // Creates a file in `slot`'s spill directory, making the directory first when the slot
  // has none (kEach, or a directory that failed under failover). With kRecreate, an
  // ENOENT (the directory was removed from outside) puts a new directory in the slot and
  // creates once more; files already made keep the old SpillDir alive through their
  // handles.
  StatusOr<Placed> CreateInSlot(size_t slot, const std::string& prefix) {
    StatusOr<std::shared_ptr<SpillDir>> dir = DirOfSlot(slot);
    if (!dir.ok()) return dir.status();
    StatusOr<std::unique_ptr<WritableFile>> file = fs_->CreateUniqueFile((*dir)->path(), prefix);
    if (!file.ok() && file.status().IsErrno(ENOENT) &&
        options_.spill.missing_dir == MissingDirPolicy::kRecreate) {
      dir = ReplaceDir(slot, *dir);
      if (!dir.ok()) return dir.status();
      file = fs_->CreateUniqueFile((*dir)->path(), prefix);
    }
    if (!file.ok()) {
      if (options_.spill.failover && accounting_->quirks().Has(Quirk::kFailoverLeak)) {
        ForgetDir(*dir);
      }
      return file.status();
    }
    return Placed{std::move(*dir), std::move(*file)};
  }

  // The spill directory in `slot`, made now if it has none.
  StatusOr<std::shared_ptr<SpillDir>> DirOfSlot(size_t slot) {
    std::lock_guard<std::mutex> lock(mu_);
    if (dirs_->dirs[slot] == nullptr) {
      StatusOr<std::shared_ptr<SpillDir>> fresh = MakeSpillDir(
          fs_, dirs_->parents[slot], SpillDirKind::kLocalDir, accounting_->removal_log());
      if (!fresh.ok()) return fresh.status();
      dirs_->dirs[slot] = std::move(*fresh);
    }
    return dirs_->dirs[slot];
  }

  // The kFailoverLeak quirk: marks `dir` as failed and forgets to remove it at the end.
  static void ForgetDir(const std::shared_ptr<SpillDir>& dir) { dir->Abandon(); }

  // Failover: records the outcome of a file in `slot` (SlotChooser::MarkSlot).
  void MarkSlot(size_t slot, const Status& outcome) {
    std::lock_guard<std::mutex> lock(mu_);
    slots_.MarkSlot(slot, outcome);
  }

  // REQUIRES: mu_ held, mode kOsTmpDirectory, no directory yet.
  Status CreateOsTmpDirLocked() {
    const std::string parent = fs_->TempDir();
    StatusOr<std::shared_ptr<SpillDir>> dir =
        MakeSpillDir(fs_, parent, SpillDirKind::kOsTmpDir, accounting_->removal_log());
    if (!dir.ok()) return dir.status();
    dirs_->dirs.push_back(std::move(*dir));
    dirs_->parents.push_back(parent);
    slots_.AddSlot();
    return OkStatus();
  }

  // Replaces the directory in `slot`, which was `stale` when the caller found its directory
  // missing, with a new spill directory in the same parent, made as Build makes one. If another
  // thread already replaced it, uses that one. Returns the directory now in the slot.
  StatusOr<std::shared_ptr<SpillDir>> ReplaceDir(size_t slot,
                                                 const std::shared_ptr<SpillDir>& stale) {
    std::lock_guard<std::mutex> lock(mu_);
    if (dirs_->dirs[slot] != stale && dirs_->dirs[slot] != nullptr) return dirs_->dirs[slot];
    StatusOr<std::shared_ptr<SpillDir>> fresh =
        MakeSpillDir(fs_, dirs_->parents[slot],
                     options_.mode == DiskManagerMode::kDirectories ? SpillDirKind::kLocalDir
                                                                    : SpillDirKind::kOsTmpDir,
                     accounting_->removal_log());
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
  // A slot's directory is null until made (kEach; a failed one under failover).
  const std::shared_ptr<SpillDirSet> dirs_ = std::make_shared<SpillDirSet>();
  // Where each new file goes, one slot per directory in dirs_. Guarded by mu_.
  SlotChooser slots_;
};

namespace {

Status ValidateOptions(const DiskManagerOptions& options) {
  const bool directories = options.mode == DiskManagerMode::kDirectories;
  const bool custom = options.mode == DiskManagerMode::kCustom;
  if (directories && options.spill.local_dirs.empty()) {
    return Status::InvalidArgument("kDirectories mode needs at least one local dir");
  }
  if (!directories && !options.spill.local_dirs.empty()) {
    return Status::InvalidArgument("local dirs are only used in kDirectories mode");
  }
  if (!directories && (options.spill.layout != SpillDirLayout::kAll || options.spill.failover)) {
    return Status::InvalidArgument("layout and failover are only used in kDirectories mode");
  }
  if (custom && options.spill.frame_spill_files) {
    return Status::InvalidArgument(
        "frame_spill_files is not used in kCustom mode (the factory's manager frames)");
  }
  if (custom && options.factory == nullptr) {
    return Status::InvalidArgument("kCustom mode needs a TempFileFactory");
  }
  if (!custom && options.factory != nullptr) {
    return Status::InvalidArgument("a TempFileFactory is only used in kCustom mode");
  }
  for (const std::string& dir : options.spill.local_dirs) {
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

StatusOr<std::shared_ptr<DiskManager>> NewDiskManager(std::shared_ptr<FileSystem> fs,
                                                      DiskManagerOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("NewDiskManager needs a FileSystem");
  SPILLWAY_RETURN_IF_ERROR(ValidateOptions(options));
  if (options.spill.cleanup_log == nullptr)
    options.spill.cleanup_log = std::make_shared<CleanupLog>();
  // A disabled manager's limit is 0, and only 0 can be set.
  const uint64_t limit =
      options.mode == DiskManagerMode::kDisabled ? 0 : options.spill.max_temp_directory_size;
  auto accounting = std::make_shared<SpillAccounting>(
      limit, options.spill.limit_config_key, options.spill.quirks, options.spill.cleanup_log,
      options.spill.budget, options.spill.frame_spill_files);
  const uint64_t seed = options.spill.seed.value_or(RandomSeed());
  const bool directories = options.mode == DiskManagerMode::kDirectories;

  auto core = std::make_shared<DiskManager::Core>(std::move(fs), std::move(options),
                                                  std::move(accounting), seed);
  if (directories) SPILLWAY_RETURN_IF_ERROR(core->CreateLocalDirs());
  return std::make_shared<DiskManager>(DiskManager::Passkey{}, std::move(core));
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
  options_.spill.local_dirs.clear();
  options_.factory.reset();
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithDirectories(std::vector<std::string> local_dirs) {
  options_.mode = DiskManagerMode::kDirectories;
  options_.spill.local_dirs = std::move(local_dirs);
  options_.factory.reset();
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithDisabled() {
  options_.mode = DiskManagerMode::kDisabled;
  options_.spill.local_dirs.clear();
  options_.factory.reset();
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithFactory(std::shared_ptr<TempFileFactory> factory) {
  options_.mode = DiskManagerMode::kCustom;
  options_.spill.local_dirs.clear();
  options_.factory = std::move(factory);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithMaxTempDirectorySize(uint64_t bytes) {
  options_.spill.max_temp_directory_size = bytes;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithMaxSpillMergeFanIn(size_t files) {
  options_.max_spill_merge_fan_in = files;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithLimitConfigKey(std::string key) {
  options_.spill.limit_config_key = std::move(key);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithMissingDirPolicy(MissingDirPolicy policy) {
  options_.spill.missing_dir = policy;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithLayout(SpillDirLayout layout) {
  options_.spill.layout = layout;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithFailover(bool failover) {
  options_.spill.failover = failover;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithQuirks(Quirks quirks) {
  options_.spill.quirks = quirks;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithSeed(uint64_t seed) {
  options_.spill.seed = seed;
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithCleanupLog(std::shared_ptr<CleanupLog> log) {
  options_.spill.cleanup_log = std::move(log);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithBudget(std::shared_ptr<SpillBudget> budget) {
  options_.spill.budget = std::move(budget);
  return *this;
}

DiskManagerBuilder& DiskManagerBuilder::WithFrameSpillFiles(bool frame) {
  options_.spill.frame_spill_files = frame;
  return *this;
}

StatusOr<std::shared_ptr<DiskManager>> DiskManagerBuilder::Build(
    std::shared_ptr<FileSystem> fs) const {
  return NewDiskManager(std::move(fs), options_);
}

}  // namespace spillway
