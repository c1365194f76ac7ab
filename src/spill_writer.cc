// SpillWriter: DataFusion's FileSpillWriter with exact accounting, and the two upstream
// versions of it that the kWriteLeak and kNoRollback quirks reproduce.
#include "spillway/spill/spill_writer.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "spill_frame.h"
#include "spill_internal.h"

namespace spillway {
namespace {

using internal::SpillAccounting;
using internal::SpillFileState;

// What one Write appends, in turn; the first failure stops the rest.
using Pieces = std::span<const std::string_view>;

constexpr uint64_t kPage = 4096;

// True when the kernel would copy `data`, written at `offset` of a file, into the page
// cache at half speed or less: on x86 CPUs with fast `rep movsb`, which copy_from_user
// uses, when the destination lies 1 to 31 bytes past the source modulo a page (2.3 times
// slower on the AMD EPYC of docs/performance.md). The frame's header moves each body 20
// bytes on, so the first bodies of a file of page-sized batches that malloc placed 16
// bytes into a page land there.
bool SlowCopy(uint64_t offset, const char* data) {
#if defined(__x86_64__)
  const uint64_t gap = (offset - reinterpret_cast<uintptr_t>(data)) % kPage;
  return gap != 0 && gap < 32;
#else
  (void)offset;
  (void)data;
  return false;
#endif
}

uint64_t SizeOf(Pieces pieces) {
  uint64_t n = 0;
  for (std::string_view piece : pieces) n += piece.size();
  return n;
}

AppendResult AppendAll(WritableFile& file, Pieces pieces) {
  AppendResult all;
  for (std::string_view piece : pieces) {
    AppendResult appended = file.Append(piece);
    all.bytes_written += appended.bytes_written;
    if (!appended.status.ok()) {
      all.status = appended.status;
      break;
    }
  }
  return all;
}

// Correct: reserve, append, then keep exactly what reached the file. Whatever the outcome,
// used_disk_space and the file's size grow by the bytes now in the file and no more.
Status WriteExact(SpillFileState& state, Pieces data) {
  SpillAccounting& accounting = *state.accounting;
  const uint64_t n = SizeOf(data);
  SPILLWAY_RETURN_IF_ERROR(accounting.Reserve(n));
  AppendResult appended = AppendAll(*state.file, data);
  // A short write stores some bytes and fails; give back only the part that is not there.
  accounting.Release(n - appended.bytes_written);
  state.size.fetch_add(appended.bytes_written);
  accounting.CountSpilled(appended.bytes_written);
  if (accounting.quirks().Has(Quirk::kWriteIgnoresErrors)) return OkStatus();  // `let _ =`.
  return appended.status;
}

// kWriteLeak (DataFusion #24228 case A, #24230): the reservation is kept when the append
// fails, and the file's size is not updated, so dropping the file gives back too little.
Status WriteLeaky(SpillFileState& state, Pieces data) {
  const uint64_t n = SizeOf(data);
  SPILLWAY_RETURN_IF_ERROR(state.accounting->Reserve(n));
  AppendResult appended = AppendAll(*state.file, data);
  state.accounting->CountSpilled(appended.bytes_written);
  if (!appended.status.ok()) return appended.status;  // The n bytes stay counted.
  state.size.fetch_add(n);
  return OkStatus();
}

// kNoRollback (DataFusion 54.1, apache/datafusion#24230): append without a limit check,
// then update the usage from the file's size. An update over the limit is reported, and
// its bytes stay counted in the manager but not in the file, so dropping the file leaves
// them counted. Bytes a failed append stored are not counted here (the next successful
// update picks them up).
Status WriteWithoutRollback(SpillFileState& state, Pieces data) {
  AppendResult appended = AppendAll(*state.file, data);
  state.accounting->CountSpilled(appended.bytes_written);
  if (!appended.status.ok()) return appended.status;
  return internal::UpdateDiskUsageLocked(state);
}

// What one Write appends: the batch; a small frame, copied whole; or a large frame's
// header and batch, uncopied unless the kernel would copy the batch slowly (SlowCopy).
class FramedBatch {
 public:
  // Hashes `data` before the caller takes the write lock.
  FramedBatch(std::string_view data, bool framed, internal::SpillFrameChecksum checksum)
      : data_(data), framed_(framed) {
    if (!framed) return;
    header_ = internal::EncodeSpillFrameHeader(data, checksum);
  }

  // The pieces, for a frame starting at `offset` of the file.
  Pieces At(uint64_t offset) {
    if (!framed_) return Pieces(&data_, 1);
    pieces_ = {std::string_view(header_.data(), header_.size()), data_};
    const uint64_t body = offset + internal::kSpillFrameHeaderSize;
    if (SlowCopy(body, data_.data())) {
      // A buffer at the body's own offset in its page, where the copy runs at full speed.
      bounce_ = std::make_unique_for_overwrite<char[]>(data_.size() + kPage);
      char* at = bounce_.get() + ((body - reinterpret_cast<uintptr_t>(bounce_.get())) % kPage);
      std::memcpy(at, data_.data(), data_.size());
      pieces_[1] = std::string_view(at, data_.size());
    }
    return Pieces(pieces_);
  }

 private:
  const std::string_view data_;
  const bool framed_;
  internal::SpillFrameHeader header_{};
  std::unique_ptr<char[]> bounce_;
  std::array<std::string_view, 2> pieces_;
};

}  // namespace

Status SpillWriter::Write(std::string_view data) {
  return internal::WriteSpillBatch(file_, data, internal::SpillFrameHash);
}

Status SpillWriter::Sync() { return SpillFile::Access::StateOf(file_).file->Sync(); }

namespace internal {

Status WriteSpillBatch(const SpillFile& file, std::string_view data, SpillFrameChecksum checksum) {
  SpillFileState& state = SpillFile::Access::StateOf(file);
  const bool framed = state.accounting->frame_spill_files();
  if (data.empty() && !framed) return OkStatus();  // No filesystem call, nothing to count.
  if (framed && data.size() > kMaxSpillFrameBody) {
    return Status::InvalidArgument("a spill frame holds at most 4 GiB - 1 bytes");
  }
  // The checksum is computed, and a small frame copied, before the lock: only the appends
  // are serialized.
  FramedBatch frame(data, framed, checksum);
  std::lock_guard<std::mutex> lock(state.write_mu);
  const Pieces pieces = frame.At(state.size.load());
  const Quirks quirks = state.accounting->quirks();
  // With both quirks on, the older upstream path (54.1) wins: it has no pre-check at all.
  if (quirks.Has(Quirk::kNoRollback)) return WriteWithoutRollback(state, pieces);
  if (quirks.Has(Quirk::kWriteLeak)) return WriteLeaky(state, pieces);
  return WriteExact(state, pieces);
}

}  // namespace internal

}  // namespace spillway
