// SpillFile: a reference-counted spill file (DataFusion's RefCountedTempFile).
//
// A SpillFile is a copyable handle; copies share one file, one open file handle and one
// size. The handle keeps the file open for its whole life, so a writer that spills many
// batches into one file (a shuffle writer) keeps working even after a tmp cleaner unlinked
// it. When the last copy goes: the file's bytes leave its manager's used_disk_space, the
// manager's active-file count drops, the file is closed and removed, and, when the manager
// and all its other files are gone too, the manager's spill directories are removed. A
// removal that fails then is recorded in the manager's CleanupLog (disk_manager.h).
//
// Thread safety: copies may be used and destroyed from different threads concurrently.
#ifndef SPILLWAY_SPILL_SPILL_FILE_H_
#define SPILLWAY_SPILL_SPILL_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "spillway/vfs/status.h"

namespace spillway {

// DataFusion's SpillingProgress.
struct SpillingProgress {
  uint64_t current_bytes = 0;
  uint64_t active_files_count = 0;
  friend bool operator==(const SpillingProgress&, const SpillingProgress&) = default;
};

// Made only by managers (a TempFileFactory hands on a file another manager made).
class SpillFile {
 public:
  // The file's path (within its manager's FileSystem).
  const std::string& path() const;
  // The bytes of this file counted in its manager's used_disk_space
  // (current_disk_usage).
  uint64_t size() const;

  // DataFusion's update_disk_usage: reads the file's size from its open handle and moves
  // the difference into the manager's used_disk_space. When the manager is then over its
  // limit, the update is rolled back and a limit error (IsLimitExceeded) is returned (with
  // the kNoRollback quirk, the manager keeps the difference counted while the file does
  // not). As upstream, a size that did not grow still fails while the manager is over its
  // limit (a limit lowered below the usage).
  // Errors: a failed size read (an errno Status), a limit error.
  Status UpdateDiskUsage();

  // How many SpillFile copies share this file.
  long use_count() const;

  // What every copy shares, and how the spill library makes a file and reaches that state.
  // Both are defined in the spill library's sources (not installed): to everyone else they
  // are incomplete types, of no use.
  struct State;
  struct Access;

 private:
  // REQUIRES: state != nullptr.
  explicit SpillFile(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_FILE_H_
