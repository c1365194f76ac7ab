// PlanDiskManager: Comet's plan_disk_manager (PR #7066) — a per-plan manager whose first
// spill file builds the plan's kDirectories DiskManager — and the quirks that reproduce
// the PR's first version (kSharedLimit), DataFusion's eager directories (kEagerDirs) and
// the merged version's outer accounting (kOuterAccounting).
#include "spillway/spill/plan_disk_manager.h"

#include <utility>

namespace spillway {
namespace {

// The quirks that change the plan, not its inner DiskManager.
bool IsPlanLevel(Quirk q) {
  return q == Quirk::kEagerDirs || q == Quirk::kSharedLimit || q == Quirk::kOuterAccounting;
}

Quirks WithoutPlanLevel(Quirks quirks) {
  Quirks inner;
  for (Quirk q : AllQuirks()) {
    if (quirks.Has(q) && !IsPlanLevel(q)) inner = inner.With(q);
  }
  return inner;
}

Status ValidateOptions(const PlanDiskManagerOptions& options) {
  if (options.local_dirs.empty()) {
    return Status::InvalidArgument("a plan's disk manager needs at least one local dir");
  }
  for (const std::string& dir : options.local_dirs) {
    SPILLWAY_RETURN_IF_ERROR(ValidatePath(dir));
  }
  return OkStatus();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// SharedManagerCache

StatusOr<std::shared_ptr<DiskManager>> SharedManagerCache::GetOrBuild(
    const Key& key, const std::function<StatusOr<std::shared_ptr<DiskManager>>()>& build) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = managers_.find(key); it != managers_.end()) return it->second;
  StatusOr<std::shared_ptr<DiskManager>> built = build();
  if (built.ok()) managers_.emplace(key, *built);  // A failed build is not cached.
  return built;
}

const std::shared_ptr<SharedManagerCache>& SharedManagerCache::ProcessWide() {
  // Never destroyed, as upstream's static map: its managers (and their directories) live
  // until the process exits, and no destructor runs at exit in an unknown order.
  static const auto* const kCache =
      new std::shared_ptr<SharedManagerCache>(std::make_shared<SharedManagerCache>());
  return *kCache;
}

// ---------------------------------------------------------------------------------------
// PlanDiskManager

struct PlanDiskManager::Private {};

StatusOr<std::shared_ptr<PlanDiskManager>> PlanDiskManager::Create(std::shared_ptr<FileSystem> fs,
                                                                   PlanDiskManagerOptions options) {
  if (fs == nullptr) return Status::InvalidArgument("PlanDiskManager::Create needs a FileSystem");
  SPILLWAY_RETURN_IF_ERROR(ValidateOptions(options));
  if (options.cleanup_log == nullptr) options.cleanup_log = std::make_shared<CleanupLog>();

  if (options.quirks.Has(Quirk::kSharedLimit)) {
    // The PR's first version: one manager per (local dirs, limit) for the whole process,
    // built eagerly and cached forever. It records cleanup failures in the log of the plan
    // that built it, and fails on a missing directory whatever this plan's policy says.
    std::shared_ptr<SharedManagerCache> cache =
        options.shared_cache != nullptr ? options.shared_cache : SharedManagerCache::ProcessWide();
    const PlanDiskManagerOptions& o = options;
    StatusOr<std::shared_ptr<DiskManager>> shared =
        cache->GetOrBuild({o.local_dirs, o.max_temp_directory_size}, [&]() {
          DiskManagerOptions inner;
          inner.mode = DiskManagerMode::kDirectories;
          inner.local_dirs = o.local_dirs;
          inner.max_temp_directory_size = o.max_temp_directory_size;
          inner.limit_config_key = o.limit_config_key;
          inner.missing_dir = MissingDirPolicy::kFail;
          inner.quirks = WithoutPlanLevel(o.quirks);
          inner.seed = o.seed;
          inner.cleanup_log = o.cleanup_log;
          return DiskManager::Build(fs, std::move(inner));
        });
    if (!shared.ok()) return shared.status();
    options.cleanup_log = (*shared)->cleanup_log();  // Where its failures are recorded.
    auto plan = std::make_shared<PlanDiskManager>(Private{}, std::move(fs), std::move(options));
    plan->inner_ = std::move(*shared);  // Not yet shared with another thread.
    return plan;
  }

  auto plan = std::make_shared<PlanDiskManager>(Private{}, std::move(fs), std::move(options));
  if (plan->options_.quirks.Has(Quirk::kEagerDirs)) {
    // DataFusion's Directories mode as every plan used it before the PR: the directories
    // are made now, whether or not the plan ever spills.
    StatusOr<std::shared_ptr<DiskManager>> inner =
        DiskManager::Build(plan->fs_, plan->InnerOptions(plan->limit_));
    if (!inner.ok()) return inner.status();
    plan->inner_ = std::move(*inner);  // Not yet shared with another thread.
  }
  return plan;
}

PlanDiskManager::PlanDiskManager(Private, std::shared_ptr<FileSystem> fs,
                                 PlanDiskManagerOptions options)
    : fs_(std::move(fs)), options_(std::move(options)), limit_(options_.max_temp_directory_size) {}

PlanDiskManager::~PlanDiskManager() = default;

DiskManagerOptions PlanDiskManager::InnerOptions(uint64_t limit) const {
  DiskManagerOptions inner;
  inner.mode = DiskManagerMode::kDirectories;
  inner.local_dirs = options_.local_dirs;
  inner.max_temp_directory_size = limit;
  inner.limit_config_key = options_.limit_config_key;
  inner.missing_dir = options_.missing_dir;
  inner.quirks = WithoutPlanLevel(options_.quirks);
  inner.seed = options_.seed;
  inner.cleanup_log = options_.cleanup_log;
  return inner;
}

StatusOr<SpillFile> PlanDiskManager::CreateTempFile(std::string_view description) {
  std::shared_ptr<DiskManager> inner;
  {
    // Only this plan's lock: concurrent first spills of one plan wait for one build, and
    // other plans are not held up.
    std::lock_guard<std::mutex> lock(mu_);
    if (inner_ == nullptr) {
      // Comet as merged builds the inner manager with the limit the plan was created
      // with; otherwise the limit as last set.
      const uint64_t limit =
          options_.quirks.Has(Quirk::kOuterAccounting) ? options_.max_temp_directory_size : limit_;
      // A failed build leaves nothing behind (DiskManager::Build removes what it made),
      // and inner_ stays null, so the next spill tries again.
      StatusOr<std::shared_ptr<DiskManager>> built = DiskManager::Build(fs_, InnerOptions(limit));
      if (!built.ok()) return built.status();
      inner_ = std::move(*built);
    }
    inner = inner_;
  }
  return inner->CreateTempFile(description);
}

uint64_t PlanDiskManager::used_disk_space() const {
  if (options_.quirks.Has(Quirk::kOuterAccounting)) return 0;
  std::shared_ptr<DiskManager> inner = this->inner();
  return inner != nullptr ? inner->used_disk_space() : 0;
}

uint64_t PlanDiskManager::max_temp_directory_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (inner_ == nullptr || options_.quirks.Has(Quirk::kOuterAccounting)) return limit_;
  return inner_->max_temp_directory_size();
}

Status PlanDiskManager::SetMaxTempDirectorySize(uint64_t bytes) {
  // Under the plan's lock, so a first spill building the inner manager concurrently
  // either sees the new limit or is already done and gets it forwarded.
  std::lock_guard<std::mutex> lock(mu_);
  limit_ = bytes;
  if (inner_ == nullptr || options_.quirks.Has(Quirk::kOuterAccounting)) return OkStatus();
  return inner_->SetMaxTempDirectorySize(bytes);
}

SpillingProgress PlanDiskManager::spilling_progress() const {
  if (options_.quirks.Has(Quirk::kOuterAccounting)) return SpillingProgress{};
  std::shared_ptr<DiskManager> inner = this->inner();
  return inner != nullptr ? inner->spilling_progress() : SpillingProgress{};
}

const std::shared_ptr<CleanupLog>& PlanDiskManager::cleanup_log() const {
  return options_.cleanup_log;
}

std::shared_ptr<DiskManager> PlanDiskManager::inner() const {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_;
}

}  // namespace spillway
