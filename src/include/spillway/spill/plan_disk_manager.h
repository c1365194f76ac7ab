// PlanDiskManager: Comet's per-plan disk manager with lazy spill directories
// (plan_disk_manager in Comet PR #7066).
//
// Every native plan gets one. Building it touches the filesystem zero times. The plan's
// first spill file builds the plan's own kDirectories DiskManager (its directories, its
// limit, its cleanup) and every later file goes through that manager. So a plan that never
// spills costs nothing, and an unusable local dir fails the plan at its first spill (with
// the errno and path), not when the plan is built. A first spill that fails leaves no
// partial directory behind, and the next spill tries again.
//
// Unlike upstream's outer manager, used_disk_space(), spilling_progress() and the limit of
// a PlanDiskManager are the real ones (those of the inner manager once it exists); the
// kOuterAccounting quirk restores the upstream behaviour.
//
// Thread safety: every method may be called concurrently. No process-wide lock is taken on
// the path of a plan that never spills (only the plan's own).
#ifndef SPILLWAY_SPILL_PLAN_DISK_MANAGER_H_
#define SPILLWAY_SPILL_PLAN_DISK_MANAGER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spillway/spill/disk_manager.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/file_system.h"

namespace spillway {

// The kSharedLimit quirk's cache: one DiskManager per (local dirs, limit), never evicted.
// Opaque (defined inside the spill library). A caller can give plans a cache of its own,
// so that runs in one process do not see each other's; without one, a process-wide cache
// is used, as upstream. Thread safety: safe for concurrent use.
class SharedManagerCache;
// A new, empty cache.
std::shared_ptr<SharedManagerCache> NewSharedManagerCache();

struct PlanDiskManagerOptions {
  // The executor's local dirs (REQUIRES: non-empty), limit, layout, failover, budget and
  // the rest (SpillOptions, disk_manager.h); the plan's inner manager is built from them.
  SpillOptions spill;
  // Used only with the kSharedLimit quirk; null means the process-wide cache.
  std::shared_ptr<SharedManagerCache> shared_cache;
};

class PlanDiskManager;
class PlanDiskManagerFactory;

// Builds one plan's manager without touching `fs` (unless the kEagerDirs quirk is on,
// which builds the inner manager now and may fail as NewDiskManager).
// Validates and copies `options` for this plan alone; an executor making many plans
// should make them from one PlanDiskManagerFactory instead.
// Errors: kInvalidArgument (a null `fs`, no local dirs, a bad path); with those quirks, an
// errno Status.
StatusOr<std::shared_ptr<PlanDiskManager>> NewPlanDiskManager(std::shared_ptr<FileSystem> fs,
                                                              PlanDiskManagerOptions options);

// An executor's factory of plans: validates `options`. Touches `fs` only under the
// kEagerDirs and kSharedLimit quirks, and then only in NewPlan. Errors: kInvalidArgument
// (a null `fs`, no local dirs, a bad path).
StatusOr<PlanDiskManagerFactory> NewPlanDiskManagerFactory(std::shared_ptr<FileSystem> fs,
                                                           PlanDiskManagerOptions options);

// An executor's spill configuration: the filesystem and the plan options, validated once
// and shared by every plan made from it, so that making a plan's manager costs one
// allocation and no filesystem call. (Comet gives every plan the executor's local dirs;
// copying them per plan would cost more than everything else a lazy plan does.)
//
// A factory is a cheap handle: copies share the same configuration, which lives as long
// as the last copy or plan that uses it. Plans made on different threads keep it alive
// through different reference counts (one per shard, threads assigned round robin), so
// that threads making plans at once do not contend on one counter.
// Moving a factory copies it (it declares no move), so no factory is ever left empty: a
// factory that was moved from still makes plans.
// Thread safety: NewPlan may be called concurrently on one factory or on its copies.
// Made by NewPlanDiskManagerFactory.
class PlanDiskManagerFactory {
 public:
  PlanDiskManagerFactory(const PlanDiskManagerFactory&) = default;
  PlanDiskManagerFactory& operator=(const PlanDiskManagerFactory&) = default;
  ~PlanDiskManagerFactory() = default;

  // A new plan's manager, as NewPlanDiskManager(fs, options) would build it. Errors:
  // none without quirks; with kEagerDirs or kSharedLimit, those of NewDiskManager.
  StatusOr<std::shared_ptr<PlanDiskManager>> NewPlan() const;

  const PlanDiskManagerOptions& options() const;

 private:
  friend class PlanDiskManager;
  friend StatusOr<PlanDiskManagerFactory> NewPlanDiskManagerFactory(std::shared_ptr<FileSystem> fs,
                                                                    PlanDiskManagerOptions options);
  friend StatusOr<std::shared_ptr<PlanDiskManager>> NewPlanDiskManager(
      std::shared_ptr<FileSystem> fs, PlanDiskManagerOptions options);
  // The configuration shared with the plans, and its per-shard owners (both defined in
  // plan_disk_manager.cc).
  struct Shared;
  struct Owners;

  explicit PlanDiskManagerFactory(std::shared_ptr<const Owners> owners);

  std::shared_ptr<const Owners> owners_;  // Never null.
};

// Made only by NewPlanDiskManager or a PlanDiskManagerFactory.
class PlanDiskManager final : public SpillManager {
 public:
  ~PlanDiskManager() override;

  StatusOr<SpillFile> CreateTempFile(std::string_view description) override;
  uint64_t used_disk_space() const override;
  uint64_t max_temp_directory_size() const override;
  Status SetMaxTempDirectorySize(uint64_t bytes) override;
  SpillingProgress spilling_progress() const override;
  bool tmp_files_enabled() const override { return true; }
  // The options' log if they name one; otherwise the plan's own, made when first needed
  // (at the first spill or the first call), so a plan that never spills never makes one.
  // Under kSharedLimit, the shared manager's log.
  std::shared_ptr<CleanupLog> cleanup_log() const override;

  // Files created, bytes written and peak usage (the inner manager's; zeros before the
  // first spill and under kOuterAccounting, as used_disk_space).
  SpillMetrics metrics() const override;

  // The inner kDirectories manager, or null before the first successful spill.
  std::shared_ptr<DiskManager> inner() const;

 private:
  friend class PlanDiskManagerFactory;
  friend StatusOr<std::shared_ptr<PlanDiskManager>> NewPlanDiskManager(
      std::shared_ptr<FileSystem> fs, PlanDiskManagerOptions options);
  // The key that lets only this class construct a plan (defined in plan_disk_manager.cc).
  struct Passkey;

 public:
  // Not callable outside plan_disk_manager.cc (a Passkey cannot be made there); use
  // NewPlanDiskManager or a PlanDiskManagerFactory.
  PlanDiskManager(Passkey key, std::shared_ptr<const PlanDiskManagerFactory::Shared> shared);

 private:
  // A plan over `shared`; builds the inner manager now under the kEagerDirs quirk.
  // REQUIRES: `shared` was validated.
  static StatusOr<std::shared_ptr<PlanDiskManager>> Make(
      std::shared_ptr<const PlanDiskManagerFactory::Shared> shared);

  // The plan's options (the factory's), and what of them it shares with a DiskManager.
  const PlanDiskManagerOptions& options() const;
  const SpillOptions& spill() const { return options().spill; }
  // The plan's own log (made now if missing). REQUIRES: mu_ held.
  const std::shared_ptr<CleanupLog>& OwnLogLocked() const;
  // The options the inner manager is built from: the plan's, without the plan-level quirks.
  // REQUIRES: mu_ held.
  DiskManagerOptions InnerOptionsLocked(uint64_t limit) const;
  // The plan's inner manager with `limit`: a new one, or under kSharedLimit the cached one
  // (built on a miss). Errors: as NewDiskManager. REQUIRES: mu_ held.
  StatusOr<std::shared_ptr<DiskManager>> BuildInnerLocked(uint64_t limit);

  // The executor's filesystem and options; never changed.
  const std::shared_ptr<const PlanDiskManagerFactory::Shared> shared_;
  mutable std::mutex mu_;  // Guards inner_, limit_, own_log_ and the first spill.
  // The plan's kDirectories manager: built by the first spill (or by NewPlan under the
  // kEagerDirs quirk; under kSharedLimit, taken from the cache). Once set, never reset.
  std::shared_ptr<DiskManager> inner_;
  // The plan's limit as last set. The inner manager's is authoritative once it exists,
  // except under kOuterAccounting, where this value is only stored and never checked.
  uint64_t limit_;
  // Where cleanup failures go when the options name no log (or, under kSharedLimit, the
  // shared manager's log). Once set, never reset.
  mutable std::shared_ptr<CleanupLog> own_log_;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_PLAN_DISK_MANAGER_H_
