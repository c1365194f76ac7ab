// The spill frame's header and checks (spill_frame.h).
#include "spill_frame.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace spillway::internal {
namespace {

// Offsets of the header's fields.
constexpr size_t kMagicAt = 0;
constexpr size_t kLengthAt = 4;
constexpr size_t kBodyChecksumAt = 8;
constexpr size_t kHeaderChecksumAt = 12;

void Put32(char* out, uint32_t value) {
  for (size_t i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint32_t Get32(const char* in) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value |= uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return value;
}

Status Corrupt(const std::string& path, uint64_t offset, std::string_view what) {
  return Status(StatusCode::kDataLoss,
                fmt::format("spill file {}: frame at offset {}: {}", path, offset, what));
}

}  // namespace

uint32_t SpillFrameChecksum(std::string_view bytes) {
  // crc32_iscsi takes an int length: feed it at most 1 GiB at a time.
  constexpr size_t kStep = size_t{1} << 30;
  uint32_t crc = 0xffffffff;
  while (!bytes.empty()) {
    const size_t n = std::min(bytes.size(), kStep);
    // ISA-L only reads the buffer; its signature predates const.
    auto* data = reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data()));
    crc = crc32_iscsi(data, static_cast<int>(n), crc);
    bytes.remove_prefix(n);
  }
  return ~crc;
}

SpillFrameHeader EncodeSpillFrameHeader(std::string_view batch) {
  SpillFrameHeader header{};
  Put32(header.data() + kMagicAt, kSpillFrameMagic);
  Put32(header.data() + kLengthAt, static_cast<uint32_t>(batch.size()));
  Put32(header.data() + kBodyChecksumAt, SpillFrameChecksum(batch));
  Put32(header.data() + kHeaderChecksumAt,
        SpillFrameChecksum(std::string_view(header.data(), kHeaderChecksumAt)));
  return header;
}

Status DecodeSpillFrame(std::string_view file, uint64_t offset, const std::string& path,
                        std::string_view* batch, uint64_t* next) {
  const uint64_t left = file.size() - offset;
  if (left < kSpillFrameHeaderSize) {
    return Corrupt(path, offset,
                   fmt::format("truncated header: {} of {} bytes", left, kSpillFrameHeaderSize));
  }
  const char* header = file.data() + offset;
  if (Get32(header + kMagicAt) != kSpillFrameMagic) return Corrupt(path, offset, "no frame magic");
  if (Get32(header + kHeaderChecksumAt) !=
      SpillFrameChecksum(std::string_view(header, kHeaderChecksumAt))) {
    return Corrupt(path, offset, "header checksum mismatch");
  }
  const uint64_t length = Get32(header + kLengthAt);
  const uint64_t body_left = left - kSpillFrameHeaderSize;
  if (length > body_left) {
    return Corrupt(path, offset, fmt::format("truncated body: {} of {} bytes", body_left, length));
  }
  const std::string_view body(header + kSpillFrameHeaderSize, length);
  if (Get32(header + kBodyChecksumAt) != SpillFrameChecksum(body)) {
    return Corrupt(path, offset, "body checksum mismatch");
  }
  *batch = body;
  *next = offset + kSpillFrameHeaderSize + length;
  return OkStatus();
}

}  // namespace spillway::internal
