// PlanDiskManager: Comet's plan_disk_manager (PR #7066) — a per-plan manager whose first
// spill file builds the plan's kDirectories DiskManager — and the quirks that reproduce
// the PR's first version (kSharedLimit), DataFusion's eager directories (kEagerDirs) and
// the merged version's outer accounting (kOuterAccounting).
#include "spillway/spill/plan_disk_manager.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <utility>

#include "shared_manager_cache.h"

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

Status ValidateOptions(const FileSystem* fs, const PlanDiskManagerOptions& options) {
  if (fs == nullptr) return Status::InvalidArgument("a plan's disk manager needs a FileSystem");
  if (options.spill.local_dirs.empty()) {
    return Status::InvalidArgument("a plan's disk manager needs at least one local dir");
  }
  for (const std::string& dir : options.spill.local_dirs) {
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

std::shared_ptr<SharedManagerCache> NewSharedManagerCache() {
  return std::make_shared<SharedManagerCache>();
}

// ---------------------------------------------------------------------------------------
// PlanDiskManagerFactory

struct PlanDiskManager::Passkey {};

struct PlanDiskManagerFactory::Shared {
  std::shared_ptr<FileSystem> fs;
  PlanDiskManagerOptions options;
};

namespace {

// Shards of a factory's reference count. Every plan holds its configuration through the
// owner of its thread's shard, so two threads making plans at once write different
// counters (a single shared count, written twice per plan by every thread, would cost
// more than the rest of a lazy plan). Threads beyond kShards share shards round robin.
constexpr size_t kShards = 16;
// Keeps each owner's reference count on a cache line of its own.
constexpr size_t kCacheLine = 64;

// This thread's shard: threads take shards in turn as they first make a plan.
size_t ThisThreadShard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t kShard = next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return kShard;
}

}  // namespace

struct PlanDiskManagerFactory::Owners {
  struct alignas(kCacheLine) Owner {
    std::shared_ptr<const Shared> shared;
  };
  std::array<std::shared_ptr<const Owner>, kShards> shards;
};

PlanDiskManagerFactory::PlanDiskManagerFactory(std::shared_ptr<const Owners> owners)
    : owners_(std::move(owners)) {}

StatusOr<PlanDiskManagerFactory> NewPlanDiskManagerFactory(std::shared_ptr<FileSystem> fs,
                                                           PlanDiskManagerOptions options) {
  using Owners = PlanDiskManagerFactory::Owners;
  using Shared = PlanDiskManagerFactory::Shared;
  SPILLWAY_RETURN_IF_ERROR(ValidateOptions(fs.get(), options));
  auto shared = std::make_shared<const Shared>(Shared{std::move(fs), std::move(options)});
  auto owners = std::make_shared<Owners>();
  for (std::shared_ptr<const Owners::Owner>& owner : owners->shards) {
    owner = std::make_shared<const Owners::Owner>(Owners::Owner{shared});
  }
  return PlanDiskManagerFactory(std::move(owners));
}

const PlanDiskManagerOptions& PlanDiskManagerFactory::options() const {
  return owners_->shards[0]->shared->options;
}

StatusOr<std::shared_ptr<PlanDiskManager>> PlanDiskManagerFactory::NewPlan() const {
  const std::shared_ptr<const Owners::Owner>& owner = owners_->shards[ThisThreadShard()];
  // Shares the owner's reference count, not the configuration's.
  return PlanDiskManager::Make(std::shared_ptr<const Shared>(owner, owner->shared.get()));
}

// ---------------------------------------------------------------------------------------
// PlanDiskManager

StatusOr<std::shared_ptr<PlanDiskManager>> NewPlanDiskManager(std::shared_ptr<FileSystem> fs,
                                                              PlanDiskManagerOptions options) {
  // One plan: its configuration needs no factory, and no shards.
  SPILLWAY_RETURN_IF_ERROR(ValidateOptions(fs.get(), options));
  return PlanDiskManager::Make(std::make_shared<const PlanDiskManagerFactory::Shared>(
      PlanDiskManagerFactory::Shared{std::move(fs), std::move(options)}));
}

StatusOr<std::shared_ptr<PlanDiskManager>> PlanDiskManager::Make(
    std::shared_ptr<const PlanDiskManagerFactory::Shared> shared) {
  auto plan = std::make_shared<PlanDiskManager>(Passkey{}, std::move(shared));
  if (plan->spill().quirks.Has(Quirk::kEagerDirs)) {
    // DataFusion's Directories mode as every plan used it before the PR: the directories
    // are made now, whether or not the plan ever spills.
    std::lock_guard<std::mutex> lock(plan->mu_);
    StatusOr<std::shared_ptr<DiskManager>> inner = plan->BuildInnerLocked(plan->limit_);
    if (!inner.ok()) return inner.status();
    plan->inner_ = std::move(*inner);
  }
  return plan;
}

PlanDiskManager::PlanDiskManager(Passkey /*key*/,
                                 std::shared_ptr<const PlanDiskManagerFactory::Shared> shared)
    : shared_(std::move(shared)), limit_(shared_->options.spill.max_temp_directory_size) {}

PlanDiskManager::~PlanDiskManager() = default;

const PlanDiskManagerOptions& PlanDiskManager::options() const { return shared_->options; }

const std::shared_ptr<CleanupLog>& PlanDiskManager::OwnLogLocked() const {
  if (own_log_ == nullptr) {
    own_log_ =
        spill().cleanup_log != nullptr ? spill().cleanup_log : std::make_shared<CleanupLog>();
  }
  return own_log_;
}

DiskManagerOptions PlanDiskManager::InnerOptionsLocked(uint64_t limit) const {
  DiskManagerOptions inner;
  inner.mode = DiskManagerMode::kDirectories;
  inner.spill = spill();
  inner.spill.max_temp_directory_size = limit;
  inner.spill.quirks = WithoutPlanLevel(spill().quirks);
  inner.spill.cleanup_log = OwnLogLocked();
  return inner;
}

StatusOr<std::shared_ptr<DiskManager>> PlanDiskManager::BuildInnerLocked(uint64_t limit) {
  const SpillOptions& o = spill();
  if (!o.quirks.Has(Quirk::kSharedLimit))
    return NewDiskManager(shared_->fs, InnerOptionsLocked(limit));
  // The PR's first version: one manager per (local dirs, limit) for the whole process
  // (and here per filesystem and behaviour-changing option, SharedManagerCache::Key),
  // cached forever and keyed on the limit the plan was created with. It records cleanup
  // failures in the log of the plan that built it.
  std::shared_ptr<SharedManagerCache> cache = options().shared_cache != nullptr
                                                  ? options().shared_cache
                                                  : SharedManagerCache::ProcessWide();
  StatusOr<std::shared_ptr<DiskManager>> cached = cache->GetOrBuild(
      SharedManagerCache::Key{reinterpret_cast<uintptr_t>(shared_->fs.get()), o.local_dirs,
                              o.max_temp_directory_size, o.limit_config_key, o.missing_dir,
                              o.quirks.ToString(), o.layout, o.failover, o.frame_spill_files},
      [&]() { return NewDiskManager(shared_->fs, InnerOptionsLocked(o.max_temp_directory_size)); });
  if (!cached.ok()) return cached.status();
  own_log_ = (*cached)->cleanup_log();  // Where its failures are recorded.
  // A limit this plan set before its first spill reaches the shared manager, as it would
  // have had the manager existed then.
  if (limit != o.max_temp_directory_size) {
    SPILLWAY_RETURN_IF_ERROR((*cached)->SetMaxTempDirectorySize(limit));
  }
  return cached;
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
          spill().quirks.Has(Quirk::kOuterAccounting) ? spill().max_temp_directory_size : limit_;
      // A failed build leaves nothing behind (NewDiskManager removes what it made),
      // and inner_ stays null, so the next spill tries again.
      StatusOr<std::shared_ptr<DiskManager>> built = BuildInnerLocked(limit);
      if (!built.ok()) return built.status();
      inner_ = std::move(*built);
    }
    inner = inner_;
  }
  return inner->CreateTempFile(description);
}

uint64_t PlanDiskManager::used_disk_space() const {
  if (spill().quirks.Has(Quirk::kOuterAccounting)) return 0;
  std::shared_ptr<DiskManager> inner = this->inner();
  return inner != nullptr ? inner->used_disk_space() : 0;
}

SpillMetrics PlanDiskManager::metrics() const {
  if (spill().quirks.Has(Quirk::kOuterAccounting)) return SpillMetrics{};
  std::shared_ptr<DiskManager> inner = this->inner();
  return inner != nullptr ? inner->metrics() : SpillMetrics{};
}

uint64_t PlanDiskManager::max_temp_directory_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (inner_ == nullptr || spill().quirks.Has(Quirk::kOuterAccounting)) return limit_;
  return inner_->max_temp_directory_size();
}

Status PlanDiskManager::SetMaxTempDirectorySize(uint64_t bytes) {
  // Under the plan's lock, so a first spill building the inner manager concurrently
  // either sees the new limit or is already done and gets it forwarded.
  std::lock_guard<std::mutex> lock(mu_);
  limit_ = bytes;
  if (inner_ == nullptr || spill().quirks.Has(Quirk::kOuterAccounting)) return OkStatus();
  return inner_->SetMaxTempDirectorySize(bytes);
}

SpillingProgress PlanDiskManager::spilling_progress() const {
  if (spill().quirks.Has(Quirk::kOuterAccounting)) return SpillingProgress{};
  std::shared_ptr<DiskManager> inner = this->inner();
  return inner != nullptr ? inner->spilling_progress() : SpillingProgress{};
}

std::shared_ptr<CleanupLog> PlanDiskManager::cleanup_log() const {
  // A log the options name is shared and never changes: no lock needed. Under kSharedLimit
  // the plan's log is the shared manager's, set when the plan takes it.
  if (spill().cleanup_log != nullptr && !spill().quirks.Has(Quirk::kSharedLimit)) {
    return spill().cleanup_log;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return OwnLogLocked();
}

std::shared_ptr<DiskManager> PlanDiskManager::inner() const {
  std::lock_guard<std::mutex> lock(mu_);
  return inner_;
}

}  // namespace spillway
