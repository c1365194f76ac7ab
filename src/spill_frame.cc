// The spill frame's header and checks (spill_frame.h).
#include "spill_frame.h"

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

#include <fmt/format.h>

namespace spillway::internal {
namespace {

// Offsets of the header's fields.
constexpr size_t kMagicAt = 0;
constexpr size_t kLengthAt = 4;
constexpr size_t kBodyHashAt = 8;
constexpr size_t kHeaderHashAt = 16;

// Little-endian, `bytes` bytes of `value`.
void Put(char* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint64_t Get(const char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i)
    value |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return value;
}

// What the header's last field holds for the header `header` points to.
uint64_t HeaderHash(const char* header, SpillFrameChecksum checksum) {
  return checksum(std::string_view(header, kHeaderHashAt)) & 0xffffffff;
}

Status Corrupt(const std::string& path, uint64_t offset, std::string_view what) {
  return Status(StatusCode::kDataLoss,
                fmt::format("spill file {}: frame at offset {}: {}", path, offset, what));
}

}  // namespace

uint64_t SpillFrameHash(std::string_view bytes) {
#if defined(__x86_64__)
  return XXH3_64bits_dispatch(bytes.data(), bytes.size());
#else
  return XXH3_64bits(bytes.data(), bytes.size());
#endif
}

SpillFrameHeader EncodeSpillFrameHeader(std::string_view batch, SpillFrameChecksum checksum) {
  SpillFrameHeader header{};
  Put(header.data() + kMagicAt, kSpillFrameMagic, 4);
  Put(header.data() + kLengthAt, batch.size(), 4);
  Put(header.data() + kBodyHashAt, checksum(batch), 8);
  Put(header.data() + kHeaderHashAt, HeaderHash(header.data(), checksum), 4);
  return header;
}

uint64_t SpillFrameEnd(std::string_view file, uint64_t offset) {
  return offset + kSpillFrameHeaderSize + Get(file.data() + offset + kLengthAt, 4);
}

Status DecodeSpillFrame(std::string_view file, uint64_t offset, const std::string& path,
                        std::string_view* batch, uint64_t* next, SpillFrameChecksum checksum) {
  const uint64_t left = file.size() - offset;
  if (left < kSpillFrameHeaderSize) {
    return Corrupt(path, offset,
                   fmt::format("truncated header: {} of {} bytes", left, kSpillFrameHeaderSize));
  }
  const char* header = file.data() + offset;
  if (Get(header + kMagicAt, 4) != kSpillFrameMagic) return Corrupt(path, offset, "no frame magic");
  if (Get(header + kHeaderHashAt, 4) != HeaderHash(header, checksum)) {
    return Corrupt(path, offset, "header checksum mismatch");
  }
  const uint64_t length = Get(header + kLengthAt, 4);
  const uint64_t body_left = left - kSpillFrameHeaderSize;
  if (length > body_left) {
    return Corrupt(path, offset, fmt::format("truncated body: {} of {} bytes", body_left, length));
  }
  const std::string_view body(header + kSpillFrameHeaderSize, length);
  if (Get(header + kBodyHashAt, 8) != checksum(body)) {
    return Corrupt(path, offset, "body checksum mismatch");
  }
  *batch = body;
  *next = offset + kSpillFrameHeaderSize + length;
  return OkStatus();
}

}  // namespace spillway::internal
