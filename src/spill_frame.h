// Private to the spill library: the frame a SpillWriter writes around each batch when its
// manager frames spill files (SpillOptions::frame_spill_files), and its checks, which
// SpillReader (spill_reader.h) runs. Not installed.
//
// A frame is a 20-byte header and the batch's bytes. The header, little-endian:
//
//   offset  size  field
//   0       4     magic, kSpillFrameMagic ("SPFR")
//   4       4     length: the batch's bytes that follow the header (0 for an empty batch)
//   8       8     XXH3-64 (xxHash) of the batch's bytes
//   16      4     the low 32 bits of XXH3-64 of bytes 0..15 of this header
//
// XXH3 rather than CRC-32C (ISA-L's crc32_iscsi), the other checksum RocksDB offers for
// its blocks, because it is faster here (bench/spill_frame_bench.cc, docs/performance.md);
// the body's hash is kept whole, so that any damage to a batch goes unnoticed with a
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
#include <string>
#include <string_view>

#include "spillway/vfs/status.h"

namespace spillway::internal {

inline constexpr size_t kSpillFrameHeaderSize = 20;
inline constexpr uint32_t kSpillFrameMagic = 0x52465053;  // "SPFR" in little-endian bytes.
// The largest batch one frame holds (its length field is 32 bits).
inline constexpr uint64_t kMaxSpillFrameBody = std::numeric_limits<uint32_t>::max();

using SpillFrameHeader = std::array<char, kSpillFrameHeaderSize>;

// XXH3-64 of `bytes` (through xxHash's x86 dispatcher where there is one, which picks
// the widest vector unit the CPU has).
uint64_t SpillFrameHash(std::string_view bytes);

// The header of the frame holding `batch`. REQUIRES: batch.size() <= kMaxSpillFrameBody.
SpillFrameHeader EncodeSpillFrameHeader(std::string_view batch);

// The frame that starts at `offset` of `file` (a whole spill file's bytes): sets `*batch`
// to its batch (a view into `file`) and `*next` to the offset after it. Errors: kDataLoss
// naming `path`, `offset` and what does not check out: a partial header, no magic, the
// header's checksum, a body shorter than its length, the body's checksum.
// REQUIRES: offset < file.size().
Status DecodeSpillFrame(std::string_view file, uint64_t offset, const std::string& path,
                        std::string_view* batch, uint64_t* next);

}  // namespace spillway::internal

#endif  // SPILLWAY_SRC_SPILL_FRAME_H_
