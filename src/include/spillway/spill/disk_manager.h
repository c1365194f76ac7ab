// DiskManager: DataFusion's DiskManager, over a FileSystem.
//
// Modes (DataFusion's DiskManagerMode):
// - kOsTmpDirectory: one "datafusion-XXXXXX" directory in the FileSystem's TempDir(),
//   created on the first spill file.
// - kDirectories: one "datafusion-XXXXXX" directory in each local dir, created when the
//   manager is built (a missing local dir is created first, one level deep, as upstream).
//   Each new file goes into one of them, chosen at random.
// - kDisabled: CreateTempFile fails with kDisabled, naming what was being spilled.
// - kCustom: every file comes from a caller-supplied TempFileFactory.
//
// Files are named ".tmp.<description>.<random>", where <description> is the request's
// description in lowercase alphanumerics, each run of anything else as '_', at most
// kMaxDescriptionLength characters. The spill directories are removed together, once the
// manager and every file it made are gone.
//
// Thread safety: every method may be called concurrently.
#ifndef SPILLWAY_SPILL_DISK_MANAGER_H_
#define SPILLWAY_SPILL_DISK_MANAGER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/quirks.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

namespace internal {
class DiskManagerCore;
}  // namespace internal

enum class DiskManagerMode { kOsTmpDirectory, kDirectories, kDisabled, kCustom };

// What CreateTempFile does when a spill directory was removed from outside (a tmp
// cleaner): kFail returns the ENOENT, as upstream; kRecreate makes a new spill directory
// in the same local dir and goes on (files made before stay valid through their handles).
enum class MissingDirPolicy { kFail, kRecreate };

inline constexpr size_t kMaxDescriptionLength = 32;
// The directory prefix DataFusion uses.
inline constexpr std::string_view kSpillDirPrefix = "datafusion-";

// DataFusion's TempFileFactory (DiskManagerMode::Custom): makes spill files for a
// manager. Thread safety: CreateTempFile may be called concurrently.
class TempFileFactory {
 public:
  virtual ~TempFileFactory() = default;
  virtual StatusOr<SpillFile> CreateTempFile(std::string_view description) = 0;
};

struct DiskManagerOptions {
  DiskManagerMode mode = DiskManagerMode::kOsTmpDirectory;
  // kDirectories: the local dirs. REQUIRES: non-empty for that mode.
  std::vector<std::string> local_dirs;
  // kCustom: the factory. REQUIRES: non-null for that mode.
  std::shared_ptr<TempFileFactory> factory;
  uint64_t max_temp_directory_size = kDefaultMaxTempDirectorySize;
  // The configuration key a limit error tells the user to raise.
  std::string limit_config_key = std::string(kDataFusionLimitKey);
  MissingDirPolicy missing_dir = MissingDirPolicy::kFail;
  Quirks quirks;
  // Seeds the choice of local dir for each file; nullopt draws a seed at random.
  std::optional<uint64_t> seed;
  // Where failed removals are recorded; null means a log of the manager's own.
  std::shared_ptr<CleanupLog> cleanup_log;
};

class DiskManager final : public SpillManager {
 public:
  // Builds a manager over `fs`. In kDirectories mode this creates the spill directories;
  // if one fails, those already made are removed and the error (errno and path) returned.
  // Errors: kInvalidArgument (options inconsistent with the mode, a bad path), an errno
  // Status.
  // REQUIRES: fs != nullptr.
  static StatusOr<std::shared_ptr<DiskManager>> Build(std::shared_ptr<FileSystem> fs,
                                                      DiskManagerOptions options);

  ~DiskManager() override;

  StatusOr<SpillFile> CreateTempFile(std::string_view description) override;
  uint64_t used_disk_space() const override;
  uint64_t max_temp_directory_size() const override;
  Status SetMaxTempDirectorySize(uint64_t bytes) override;
  SpillingProgress spilling_progress() const override;
  bool tmp_files_enabled() const override;
  const std::shared_ptr<CleanupLog>& cleanup_log() const override;

  DiskManagerMode mode() const;
  // The spill directories that exist now (kOsTmpDirectory: none before the first file).
  std::vector<std::string> spill_dirs() const;

  // Implementation; public only for make_shared.
  explicit DiskManager(std::shared_ptr<internal::DiskManagerCore> core);

 private:
  std::shared_ptr<internal::DiskManagerCore> core_;
};

// DataFusion's DiskManagerBuilder: DiskManagerBuilder().WithMode(...).Build(fs).
class DiskManagerBuilder {
 public:
  DiskManagerBuilder& WithOsTmpDirectory();
  DiskManagerBuilder& WithDirectories(std::vector<std::string> local_dirs);
  DiskManagerBuilder& WithDisabled();
  DiskManagerBuilder& WithFactory(std::shared_ptr<TempFileFactory> factory);
  DiskManagerBuilder& WithMaxTempDirectorySize(uint64_t bytes);
  DiskManagerBuilder& WithLimitConfigKey(std::string key);
  DiskManagerBuilder& WithMissingDirPolicy(MissingDirPolicy policy);
  DiskManagerBuilder& WithQuirks(Quirks quirks);
  DiskManagerBuilder& WithSeed(uint64_t seed);
  DiskManagerBuilder& WithCleanupLog(std::shared_ptr<CleanupLog> log);

  const DiskManagerOptions& options() const { return options_; }
  StatusOr<std::shared_ptr<DiskManager>> Build(std::shared_ptr<FileSystem> fs) const;

 private:
  DiskManagerOptions options_;
};

// "1.5 KiB", "100.0 GiB", "10 B": sizes in the units limit errors use.
std::string HumanBytes(uint64_t bytes);

// The file-name form of a description: lowercase alphanumerics, each run of other
// characters as one '_', cut to kMaxDescriptionLength; "spill" if that leaves nothing.
std::string EscapeDescription(std::string_view description);

}  // namespace spillway

#endif  // SPILLWAY_SPILL_DISK_MANAGER_H_
