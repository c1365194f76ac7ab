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
// When the file's manager frames spill files (SpillOptions::frame_spill_files, off by
// default), each Write appends one frame: a 20-byte header (magic, length, XXH3 hash of
// the batch, hash of the header) and then `data`, so that SpillReader (spill_reader.h) can
// tell the batches apart and check each. The header's bytes are counted as the data's.
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

  // Appends `data`; framed, appends one frame holding it. Writing zero bytes unframed
  // succeeds without touching the filesystem; framed, it appends an empty batch's frame.
  // Errors: a limit error (nothing written), an errno Status from the append (what reached the
  // file is counted; a frame cut short is caught as a truncation when read back), framed
  // only: kInvalidArgument for 4 GiB or more (nothing written).
  Status Write(std::string_view data);

  // Flushes the file to stable storage. Errors: an errno Status.
  Status Sync();

  const SpillFile& file() const { return file_; }

 private:
  SpillFile file_;
};

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_WRITER_H_
