// DiskManager: DataFusion's DiskManager, over a FileSystem.
//
// Modes (DataFusion's DiskManagerMode):
// - kOsTmpDirectory: one ".tmpXXXXXX" directory (tempfile::tempdir()'s name) in the
//   FileSystem's TempDir(), created on the first spill file.
// - kDirectories: one "datafusion-XXXXXX" directory in each local dir, created when the
//   manager is built (a missing local dir is created first, one level deep, as upstream).
//   Each new file goes into one of them, chosen at random. Beyond upstream (both off by
//   default): SpillDirLayout::kEach makes a local dir's directory only when the first
//   file lands there, and `failover` tries a file that cannot be created in its local dir
//   in the others in turn.
// - kDisabled: CreateTempFile fails with a disabled error (IsDisabled, spill_status.h),
//   naming what was being spilled.
// - kCustom: every file comes from a caller-supplied TempFileFactory, and is counted and
//   limited by whatever made it (typically another manager the factory spills through),
//   never by this manager. So, as for the outer manager of a Comet plan (whose factory
//   builds the plan's inner kDirectories manager), used_disk_space() and
//   spilling_progress() stay 0 however much is spilled, and SetMaxTempDirectorySize()
//   only stores the value: it always succeeds, max_temp_directory_size() returns it, and
//   no spill is ever checked against it. To limit the files, limit the factory's manager.
//
// Files are named as upstream names them: ".tmp.<description>.<random>", where
// <description> is the request's description in lowercase (Unicode) alphanumerics, each
// run of anything else between two of them as '_', cut once ".tmp.<description>" reaches
// 123 bytes. The spill directories are removed together, once the manager and every file
// it made are gone.
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
#include "spillway/spill/spill_budget.h"
#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_manager.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

enum class DiskManagerMode { kOsTmpDirectory, kDirectories, kDisabled, kCustom };

// What CreateTempFile does when a spill directory was removed from outside (a tmp
// cleaner): kFail returns the ENOENT, as upstream; kRecreate makes a new spill directory
// in the same local dir and goes on (files made before stay valid through their handles).
enum class MissingDirPolicy { kFail, kRecreate };

// Where a kDirectories manager makes its spill directories.
enum class SpillDirLayout {
  // DataFusion (and Comet's first spill): one in every local dir, all made when the
  // manager is built, although each file lands in only one of them.
  kAll,
  // A local dir's spill directory is made when the first file lands there: building the
  // manager touches nothing, and its first file makes one directory, whatever the number
  // of local dirs.
  kEach,
};

// "all" or "each", as the scenario option `layout=` spells it.
std::string_view SpillDirLayoutName(SpillDirLayout layout);

// The errnos after which a failover manager avoids a local dir for later files, until
// every other local dir has failed too: a full, over-quota, failing or read-only disk.
bool IsLocalDirUnhealthy(const Status& error);

// DataFusion's DEFAULT_MAX_SPILL_MERGE_FAN_IN: no cap.
inline constexpr size_t kDefaultMaxSpillMergeFanIn = 0;
// The prefix of the spill directory DataFusion makes in each local dir (kDirectories).
inline constexpr std::string_view kSpillDirPrefix = "datafusion-";
// The prefix of the one directory kOsTmpDirectory makes in the temp dir: DataFusion calls
// tempfile::tempdir(), whose default Builder prefix is ".tmp".
inline constexpr std::string_view kOsTmpDirPrefix = ".tmp";

// DataFusion's TempFileFactory (DiskManagerMode::Custom): makes spill files for a
// manager. Not copyable. Thread safety: CreateTempFile may be called concurrently.
class TempFileFactory {
 public:
  TempFileFactory() = default;
  virtual ~TempFileFactory() = default;

  TempFileFactory(const TempFileFactory&) = delete;
  TempFileFactory& operator=(const TempFileFactory&) = delete;

  // A new spill file for `description`, as SpillManager::CreateTempFile. Errors: those of
  // whatever makes the file; a kCustom manager returns them unchanged.
  virtual StatusOr<SpillFile> CreateTempFile(std::string_view description) = 0;
};

// What a DiskManager and a plan (PlanDiskManager) share: the local dirs, the limit and the
// key its error names, what to do about a vanished spill directory, the layout and
// failover beyond upstream, the quirks, the seed, the cleanup log, the budget and framing. Embedded
// as `spill` in DiskManagerOptions and PlanDiskManagerOptions; a plan's first spill builds
// its inner DiskManager from the plan's own.
struct SpillOptions {
  // The local dirs. REQUIRES: non-empty for a kDirectories manager and for a plan.
  std::vector<std::string> local_dirs;
  uint64_t max_temp_directory_size = kDefaultMaxTempDirectorySize;
  // The configuration key a limit error tells the user to raise (Comet passes
  // "spark.comet.maxTempDirectorySize").
  std::string limit_config_key = std::string(kDataFusionLimitKey);
  MissingDirPolicy missing_dir = MissingDirPolicy::kFail;
  // kDirectories only (a DiskManager of any other mode rejects a non-default value): when
  // each local dir's spill directory is made. kAll is upstream's behaviour (and Comet's:
  // a plan's first spill makes one in every local dir); kEach makes one mkdir.
  SpillDirLayout layout = SpillDirLayout::kAll;
  // kDirectories only (any other mode rejects true). False, as upstream: a file that
  // cannot be created in its local dir fails the spill. True: the file (or, under kAll,
  // the build's spill directory) is tried in the other local dirs in turn, starting after
  // the chosen one, those not avoided first (IsLocalDirUnhealthy); the spill fails only
  // when every local dir fails, with the first error's code, errno, op and path, and a
  // message naming every local dir and its errno. Under kAll, a build whose directory
  // fails in some local dirs succeeds with the others; those are retried, one directory
  // each, by the files that land there.
  bool failover = false;
  Quirks quirks;
  // Seeds the choice of local dir for each file; nullopt draws a seed at random.
  std::optional<uint64_t> seed;
  // Where failed removals are recorded; null means a log of the manager's (or plan's) own.
  std::shared_ptr<CleanupLog> cleanup_log;
  // An executor-wide budget every write must also fit (spill_budget.h), shared with other
  // managers and plans; null (the default, as upstream) means none.
  std::shared_ptr<SpillBudget> budget;
  // Beyond upstream: false (the default, as DataFusion, whose spill files carry no
  // checksum) writes each SpillWriter::Write as it is; true writes it as one checksummed
  // frame, which SpillReader (spill_reader.h) checks when the file is read back. A kCustom
  // manager rejects true: its files are framed as the factory's manager says.
  bool frame_spill_files = false;
};

struct DiskManagerOptions {
  DiskManagerMode mode = DiskManagerMode::kOsTmpDirectory;
  // kCustom: the factory. REQUIRES: non-null for that mode.
  std::shared_ptr<TempFileFactory> factory;
  // The most spill files one external merge pass may open; 0 means no cap. The manager
  // only carries it, for the operators that merge (as DataFusion's DiskManager does).
  size_t max_spill_merge_fan_in = kDefaultMaxSpillMergeFanIn;
  // What a plan shares; `spill.local_dirs` are kDirectories' local dirs.
  SpillOptions spill;
};

class DiskManager;

// Builds a manager over `fs`. In kDirectories mode with the kAll layout this creates the
// spill directories; if one fails, those already made are removed and the error (errno
// and path) returned (with failover, only when every one fails; see the options).
// Errors: kInvalidArgument (a null `fs`, options inconsistent with the mode, a bad path),
// an errno Status.
StatusOr<std::shared_ptr<DiskManager>> NewDiskManager(std::shared_ptr<FileSystem> fs,
                                                      DiskManagerOptions options);

// Made only by NewDiskManager (or DiskManagerBuilder, which ends in it).
class DiskManager final : public SpillManager {
 public:
  ~DiskManager() override;

  StatusOr<SpillFile> CreateTempFile(std::string_view description) override;
  // kCustom: always 0 (the factory's files are counted where they are made).
  uint64_t used_disk_space() const override;
  uint64_t max_temp_directory_size() const override;
  // kCustom: stores `bytes` and returns OK; nothing is checked against it. kDisabled:
  // only 0 is accepted.
  Status SetMaxTempDirectorySize(uint64_t bytes) override;
  SpillingProgress spilling_progress() const override;
  bool tmp_files_enabled() const override;
  std::shared_ptr<CleanupLog> cleanup_log() const override;

  // DataFusion's max_spill_merge_fan_in / set_max_spill_merge_fan_in: read and change the
  // merge fan-in cap at any time (0: no cap). Every mode accepts any value.
  size_t max_spill_merge_fan_in() const;
  void SetMaxSpillMergeFanIn(size_t files);

  DiskManagerMode mode() const;
  // As SpillManager; kCustom: zeros, as for used_disk_space.
  SpillMetrics metrics() const override;
  // The spill directories that exist now, in local dir order (kOsTmpDirectory: none
  // before the first file; kEach: those of the local dirs a file has landed in).
  std::vector<std::string> spill_dirs() const;

 private:
  friend StatusOr<std::shared_ptr<DiskManager>> NewDiskManager(std::shared_ptr<FileSystem> fs,
                                                               DiskManagerOptions options);
  // The manager's state, and the key that lets only NewDiskManager construct one (both
  // defined in disk_manager.cc).
  class Core;
  struct Passkey;

 public:
  // Not callable outside disk_manager.cc (a Passkey cannot be made there); use
  // NewDiskManager.
  DiskManager(Passkey key, std::shared_ptr<Core> core);

 private:
  std::shared_ptr<Core> core_;
};

// DataFusion's DiskManagerBuilder (DiskManager::builder() is DiskManagerBuilder()).
// Upstream's with_mode(DiskManagerMode::...) is one method per mode here:
// WithOsTmpDirectory(), WithDirectories(dirs), WithDisabled(), WithFactory(factory)
// (with_temp_file_factory); the last one called wins, as upstream's last with_mode.
// For example DiskManagerBuilder().WithDirectories(dirs).WithMaxTempDirectorySize(n).Build(fs).
class DiskManagerBuilder {
 public:
  DiskManagerBuilder& WithOsTmpDirectory();
  DiskManagerBuilder& WithDirectories(std::vector<std::string> local_dirs);
  DiskManagerBuilder& WithDisabled();
  DiskManagerBuilder& WithFactory(std::shared_ptr<TempFileFactory> factory);
  DiskManagerBuilder& WithMaxTempDirectorySize(uint64_t bytes);
  DiskManagerBuilder& WithMaxSpillMergeFanIn(size_t files);
  DiskManagerBuilder& WithLimitConfigKey(std::string key);
  DiskManagerBuilder& WithMissingDirPolicy(MissingDirPolicy policy);
  DiskManagerBuilder& WithLayout(SpillDirLayout layout);
  DiskManagerBuilder& WithFailover(bool failover);
  DiskManagerBuilder& WithQuirks(Quirks quirks);
  DiskManagerBuilder& WithSeed(uint64_t seed);
  DiskManagerBuilder& WithCleanupLog(std::shared_ptr<CleanupLog> log);
  DiskManagerBuilder& WithBudget(std::shared_ptr<SpillBudget> budget);
  DiskManagerBuilder& WithFrameSpillFiles(bool frame);

  const DiskManagerOptions& options() const { return options_; }
  // NewDiskManager(fs, options()): a builder ends in the factory.
  StatusOr<std::shared_ptr<DiskManager>> Build(std::shared_ptr<FileSystem> fs) const;

 private:
  DiskManagerOptions options_;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_DISK_MANAGER_H_
