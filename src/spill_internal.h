// Private to the spill library: the pieces a manager, its directories and its files share.
// Not installed.
//
// Ownership (DataFusion's DiskManager / TempDir / RefCountedTempFile, in C++):
//
//   DiskManager ──> DiskManagerCore ──> SpillDir (one per local dir) ──┐
//                          │                   ▲                       │
//                          ▼                   │ shared_ptr            ▼
//                    SpillAccounting <── SpillFileState <── SpillFile  CleanupLog
//                                              (one per file; SpillFile copies share it)
//
// A file holds its accounting and its directory, never the manager, so files may outlive
// the manager; a directory goes only when the manager and all its files are gone.
#ifndef SPILLWAY_SRC_SPILL_INTERNAL_H_
#define SPILLWAY_SRC_SPILL_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "spillway/spill/cleanup_log.h"
#include "spillway/spill/quirks.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::internal {

// The counters of one manager (DataFusion's used_disk_space, active_files_count and
// max_temp_directory_size), shared by the manager and every file it made, and outliving
// both. Also carries what the files need to know about their manager: its quirks, the
// configuration key to name in limit errors, and its CleanupLog.
//
// Thread safety: every method may be called concurrently.
class SpillAccounting {
 public:
  // REQUIRES: cleanup_log != nullptr.
  SpillAccounting(uint64_t limit, std::string limit_config_key, Quirks quirks,
                  std::shared_ptr<CleanupLog> cleanup_log);

  SpillAccounting(const SpillAccounting&) = delete;
  SpillAccounting& operator=(const SpillAccounting&) = delete;

  // Counts `bytes` more as used, unless that would take used over the limit; then counts
  // nothing and returns kLimitExceeded. Used == limit is allowed (DataFusion checks `>`).
  Status Reserve(uint64_t bytes);
  // Counts `bytes` more as used whatever the limit; returns the new total. For the
  // kNoRollback quirk, which checks only afterwards.
  uint64_t Add(uint64_t bytes);
  // Counts `bytes` fewer as used. REQUIRES: bytes <= used().
  void Release(uint64_t bytes);

  // The kLimitExceeded error for a request of `bytes` on top of `used`.
  Status LimitError(uint64_t used, uint64_t bytes) const;

  void FileCreated() { active_files_.fetch_add(1); }
  void FileRemoved() { active_files_.fetch_sub(1); }

  uint64_t used() const { return used_.load(); }
  uint64_t active_files() const { return active_files_.load(); }
  uint64_t limit() const { return limit_.load(); }
  void set_limit(uint64_t bytes) { limit_.store(bytes); }

  Quirks quirks() const { return quirks_; }
  const std::shared_ptr<CleanupLog>& cleanup_log() const { return cleanup_log_; }

 private:
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> active_files_{0};
  std::atomic<uint64_t> limit_;
  const Quirks quirks_;
  const std::string limit_config_key_;
  const std::shared_ptr<CleanupLog> cleanup_log_;
};

// One "datafusion-XXXXXX" spill directory (DataFusion's TempDir). Destroying it removes it
// and everything left in it; a removal that fails is recorded in the CleanupLog.
//
// Thread safety: immutable after construction.
class SpillDir {
 public:
  // Takes ownership of the existing directory `path`. REQUIRES: fs, cleanup_log non-null.
  SpillDir(std::shared_ptr<FileSystem> fs, std::string path,
           std::shared_ptr<CleanupLog> cleanup_log);
  ~SpillDir();

  SpillDir(const SpillDir&) = delete;
  SpillDir& operator=(const SpillDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  const std::shared_ptr<FileSystem> fs_;
  const std::string path_;
  const std::shared_ptr<CleanupLog> cleanup_log_;
};

// Makes a new spill directory ("datafusion-" + random) in `parent`, as DataFusion's
// create_local_dirs does for one local dir: when `create_parent` is set, a missing parent
// is created first (one level deep; EEXIST from a concurrent creator is fine). Errors: the
// failing call's kErrno Status (with its errno and path).
StatusOr<std::shared_ptr<SpillDir>> MakeSpillDir(const std::shared_ptr<FileSystem>& fs,
                                                 const std::string& parent, bool create_parent,
                                                 const std::shared_ptr<CleanupLog>& log);

// What every copy of one SpillFile shares (RefCountedTempFile's fields). Destroying it,
// when the last copy goes, gives the file's bytes back to the accounting, lowers the
// active-file count, closes the file, removes it (recording a failure in the CleanupLog),
// and lets go of the directory.
//
// Thread safety: `size` may be read at any time; changes to it, and the appends they
// account for, happen under `write_mu`.
struct SpillFileState {
  // REQUIRES: every pointer non-null; the file was created at file->path().
  SpillFileState(std::shared_ptr<SpillAccounting> accounting, std::shared_ptr<SpillDir> dir,
                 std::shared_ptr<FileSystem> fs, std::unique_ptr<WritableFile> file);
  ~SpillFileState();

  SpillFileState(const SpillFileState&) = delete;
  SpillFileState& operator=(const SpillFileState&) = delete;

  const std::shared_ptr<SpillAccounting> accounting;
  std::shared_ptr<SpillDir> dir;
  const std::shared_ptr<FileSystem> fs;
  // Open for the file's whole life, so it stays writable after a cleaner unlinked it.
  std::unique_ptr<WritableFile> file;
  const std::string path;
  // The bytes of this file counted in accounting->used() (current_file_disk_usage).
  std::atomic<uint64_t> size{0};
  // Serializes appends with their accounting, and size updates, so that `size` is always
  // exactly what this file has counted.
  std::mutex write_mu;
};

// SpillFile::UpdateDiskUsage with `state.write_mu` already held (the kNoRollback writer
// calls it after its append).
Status UpdateDiskUsageLocked(SpillFileState& state);

}  // namespace spillway::internal

#endif  // SPILLWAY_SRC_SPILL_INTERNAL_H_
