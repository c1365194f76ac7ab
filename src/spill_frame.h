// Private to the spill library: the frame a SpillWriter writes around each batch when its
// manager frames spill files (SpillOptions::frame_spill_files), and its checks, which
// SpillReader (spill_reader.h) runs. Not installed.
//
// A frame is a 20-byte header and the batch's bytes. The header, little-endian:
//
//   offset  size  field
//   0       4     magic, kSpillFrameMagic ("SPFR")
//   4       4     length: the batch's bytes that follow the header (0 for an empty batch)
//   8       8     the checksum (SpillFrameHash) of the batch's bytes
//   16      4     the low 32 bits of the checksum of bytes 0..15 of this header
//
// The checksum is XXH3-64 (xxHash), chosen over CRC-32C (ISA-L's crc32_iscsi), the other
// checksum RocksDB offers for its blocks, by bench/spill_frame_bench.cc, which writes and
// reads the same 1 MiB batches plain and framed with each, side by side
// (docs/performance.md): on 2026-12-03, at a load average of 53 to 56 on 2 cores, framed
// writes took 1.26 times the CPU of plain ones with XXH3 and 1.27 with CRC-32C, reads 1.22
// and 1.29 (at a load of 30: 1.25 and 1.33, 1.20 and 1.25); alone, XXH3 hashes a MiB in
// 23.7 us, CRC-32C in 44.5 us.
// The body's hash is kept whole, so that any damage to a batch goes unnoticed with a
// chance of 2^-64, not CRC-32C's 2^-32 (which in exchange is certain to catch a single
// bit flip).
//
// The header's own checksum covers the length, so a damaged length is caught before it
// is trusted to find the body; the magic makes a zeroed header (a lost write past the
// old end of the file reads back as zeros) never a valid frame, whatever its length.
#ifndef SPILLWAY_SRC_SPILL_FRAME_H_
#define SPILLWAY_SRC_SPILL_FRAME_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "spillway/spill/spill_file.h"
#include "spillway/spill/spill_reader.h"
#include "spillway/vfs/status.h"

namespace spillway::internal {

inline constexpr size_t kSpillFrameHeaderSize = 20;
inline constexpr uint32_t kSpillFrameMagic = 0x52465053;  // "SPFR" in little-endian bytes.
// The largest batch one frame holds (its length field is 32 bits).
inline constexpr uint64_t kMaxSpillFrameBody = std::numeric_limits<uint32_t>::max();

using SpillFrameHeader = std::array<char, kSpillFrameHeaderSize>;

// A frame's checksum of `bytes`, as its header stores it (one of 32 bits zero-extended).
using SpillFrameChecksum = uint64_t (*)(std::string_view bytes);

// The checksum frames use: XXH3-64 of `bytes` (through xxHash's x86 dispatcher where
// there is one, which picks the widest vector unit the CPU has).
uint64_t SpillFrameHash(std::string_view bytes);

// The header of the frame holding `batch`, checksummed by `checksum`.
// REQUIRES: batch.size() <= kMaxSpillFrameBody.
SpillFrameHeader EncodeSpillFrameHeader(std::string_view batch,
                                        SpillFrameChecksum checksum = SpillFrameHash);

// The frame that starts at `offset` of `file` (a whole spill file's bytes): sets `*batch`
// to its batch (a view into `file`) and `*next` to the offset after it. Errors: kDataLoss
// naming `path`, `offset` and what does not check out: a partial header, no magic, the
// header's checksum, a body shorter than its length, the body's checksum.
// REQUIRES: offset < file.size().
Status DecodeSpillFrame(std::string_view file, uint64_t offset, const std::string& path,
                        std::string_view* batch, uint64_t* next,
                        SpillFrameChecksum checksum = SpillFrameHash);

// Where the frame that starts at `offset` of `file` ends by its header's length field,
// unchecked. REQUIRES: file.size() - offset >= kSpillFrameHeaderSize.
uint64_t SpillFrameEnd(std::string_view file, uint64_t offset);

// SpillWriter::Write of `data` to `file`, a framed file's frames checksummed by
// `checksum`; and NewSpillReader(file) checking them with `checksum`. SpillWriter and
// SpillReader pass SpillFrameHash; bench/spill_frame_bench.cc times both paths with each
// candidate checksum.
Status WriteSpillBatch(const SpillFile& file, std::string_view data, SpillFrameChecksum checksum);
StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(const SpillFile& file,
                                                      SpillFrameChecksum checksum);

}  // namespace spillway::internal

#endif  // SPILLWAY_SRC_SPILL_FRAME_H_
