// SpillWriter: appends bytes to a SpillFile with exact accounting (DataFusion's
// FileSpillWriter).
//
// Write(data) keeps used_disk_space equal to the bytes that reached the disk in every
// outcome:
// - the limit is checked before writing: when the bytes would not fit, nothing is written,
//   nothing is counted, and a limit error (IsLimitExceeded) is returned;
// - a write that fails gives back what it reserved;
// - a short write (ENOSPC half-way, an injected EIO) counts exactly the bytes that reached
//   the file, in both used_disk_space and the file's size.
// The kWriteLeak and kNoRollback quirks replace this with the upstream behaviour.
//
// Thread safety: a SpillWriter may be used by one thread at a time; several writers on
// copies of one SpillFile may write concurrently (their appends are not ordered).
#ifndef SPILLWAY_SPILL_SPILL_WRITER_H_
#define SPILLWAY_SPILL_SPILL_WRITER_H_

#include <cstdint>
#include <string_view>

#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_status.h"
#include "spillway/vfs/status.h"

namespace spillway {

class SpillWriter {
 public:
  explicit SpillWriter(SpillFile file) : file_(std::move(file)) {}

  // Appends `data`. Writing zero bytes succeeds without touching the filesystem.
  // Errors: a limit error (nothing written), an errno Status from the append (what reached the
  // file is counted).
  Status Write(std::string_view data);

  // Flushes the file to stable storage. Errors: an errno Status.
  Status Sync();

  const SpillFile& file() const { return file_; }

 private:
  SpillFile file_;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_WRITER_H_
