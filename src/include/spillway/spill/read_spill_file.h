// ReadSpillFile: a spill file's batches read back whole, as the engine that spilled them
// would before turning them into query results.
//
// Reads through SpillReader (spill_reader.h): a framed file's frames are checked, so damage
// on the disk comes back as kDataLoss naming the file and the frame's offset; a plain file
// (the default, upstream's) comes back as it is, damaged or not. The kReaderSkipsCheck
// quirk emulates a reader that trusts each frame's length and skips its checksums.
//
// Thread safety: as NewSpillReader(const SpillFile&).
#ifndef SPILLWAY_SPILL_READ_SPILL_FILE_H_
#define SPILLWAY_SPILL_READ_SPILL_FILE_H_

#include <cstdint>
#include <string>

#include "spillway/spill/spill_file.h"
#include "spillway/vfs/status.h"

namespace spillway {

// The bytes a framed SpillWriter::Write appends before its batch (the frame's header),
// counted with the batch: what a model of the accounting adds per framed write.
inline constexpr uint64_t kSpillFrameHeaderBytes = 20;

// The batches of `file`, in order, joined. Errors: the read's errno Status; framed only,
// kDataLoss at the first frame that does not check out (never with kReaderSkipsCheck).
StatusOr<std::string> ReadSpillFile(const SpillFile& file);

}  // namespace spillway

#endif  // SPILLWAY_SPILL_READ_SPILL_FILE_H_
