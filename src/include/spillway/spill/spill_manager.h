// SpillManager: what a plan spills through. DiskManager (DataFusion's, every mode) and
// PlanDiskManager (Comet's lazy per-plan manager) both implement it, so an operator, a test
// or the scenario runner can use either.
//
// Thread safety: every method may be called concurrently from any thread.
#ifndef SPILLWAY_SPILL_SPILL_MANAGER_H_
#define SPILLWAY_SPILL_SPILL_MANAGER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/status.h"

namespace spillway {

// DataFusion's default max_temp_directory_size: 100 GiB.
inline constexpr uint64_t kDefaultMaxTempDirectorySize = uint64_t{100} << 30;
// The configuration key named in limit errors unless the caller names another.
inline constexpr std::string_view kDataFusionLimitKey =
    "datafusion.runtime.max_temp_directory_size";

// Not copyable: a manager is shared through a pointer to the interface.
class SpillManager {
 public:
  SpillManager() = default;
  virtual ~SpillManager() = default;

  SpillManager(const SpillManager&) = delete;
  SpillManager& operator=(const SpillManager&) = delete;

  // Creates a new, empty spill file (create_tmp_file). `description` says what is being
  // spilled ("sort", "hash join build side"); it is escaped into the file name and named
  // in errors. The file holds a reference that keeps the manager's directories alive.
  // Errors: a disabled error (IsDisabled, naming `description`), an errno Status (with
  // the path that failed).
  virtual StatusOr<SpillFile> CreateTempFile(std::string_view description) = 0;

  // Bytes held by this manager's live spill files.
  virtual uint64_t used_disk_space() const = 0;
  // The limit on used_disk_space.
  virtual uint64_t max_temp_directory_size() const = 0;
  // Changes the limit while files are being written; later writes are checked against
  // the new value, bytes already written stay. A disabled manager accepts only 0.
  // Errors: a disabled error (IsDisabled).
  virtual Status SetMaxTempDirectorySize(uint64_t bytes) = 0;
  // Bytes and number of live spill files.
  virtual SpillingProgress spilling_progress() const = 0;
  // False for a disabled manager.
  virtual bool tmp_files_enabled() const = 0;
  // Where this manager, its files and its directories record removals that failed. The
  // caller shares the log, so it may keep it after the manager is gone.
  virtual std::shared_ptr<CleanupLog> cleanup_log() const = 0;
  // Spill files created, bytes that reached them (never decreasing) and the peak of
  // used_disk_space, since the manager was built.
  virtual SpillMetrics metrics() const = 0;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_MANAGER_H_
