// SpillReader: reads a spill file back, batch by batch.
//
// A manager built with SpillOptions::frame_spill_files writes each SpillWriter::Write as
// one frame: a 20-byte header (a magic, the batch's length, an XXH3 hash of the batch and
// a hash of the header itself) and the batch. Reading such a file back checks every
// frame, so a bit flipped on the disk, a lost write's zeros or a truncated file is
// reported as kDataLoss naming the file and the offset of the first frame that does not
// check out, instead of being handed on as data. Without framing (the default, as
// DataFusion, whose Arrow IPC spill files carry no checksum) a file is a plain byte
// stream: its reader returns it whole, as one batch, and checks nothing.
//
// Thread safety: a SpillReader may be used by one thread at a time; readers of one file
// are independent.
#ifndef SPILLWAY_SPILL_SPILL_READER_H_
#define SPILLWAY_SPILL_SPILL_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "spillway/spill/spill_file.h"
#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

// Not copyable: used through a pointer to the interface.
class SpillReader {
 public:
  SpillReader() = default;
  virtual ~SpillReader() = default;

  SpillReader(const SpillReader&) = delete;
  SpillReader& operator=(const SpillReader&) = delete;

  // Effect: returns the next batch, in the order they were written, or nullopt at the end
  // of the file (a framed file ends cleanly only at a frame boundary). The view stays
  // valid as long as the reader. Errors: kDataLoss, "spill file PATH: frame at offset N:
  // WHAT", for the first frame that does not check out (a partial header or body at the
  // end of the file, no magic, a header or body checksum that does not match); every
  // later call returns the same error. Thread safety: not with other calls on this reader.
  virtual StatusOr<std::optional<std::string_view>> Next() = 0;

  // The offset of the frame Next reads next; after an error, that of the frame that did
  // not check out. Thread safety: not with Next.
  virtual uint64_t offset() const = 0;

  // The file read. Thread safety: may be called concurrently.
  virtual const std::string& path() const = 0;
};

// Reads the file at `path` of `fs` whole and returns a reader of its batches, checking
// frames when `framed` (each as soon as it has been read in, read_file_in_chunks.h).
// `fs` is not used after the call.
// Errors: the read's errno Status, unchanged (an EIO is an EIO, never kDataLoss).
StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(FileSystem& fs, const std::string& path,
                                                      bool framed);

// As above, for a spill file through its own manager's filesystem, framed when its manager
// frames spill files. Thread safety: may be called while the file is being written; it
// reads what was written so far.
StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(const SpillFile& file);

}  // namespace spillway

#endif  // SPILLWAY_SPILL_SPILL_READER_H_
