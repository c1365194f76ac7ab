// SpillWriter: DataFusion's FileSpillWriter with exact accounting, and the two upstream
// versions of it that the kWriteLeak and kNoRollback quirks reproduce.
#include "spillway/spill/spill_writer.h"

#include <array>
#include <span>

#include "spill_frame.h"
#include "spill_internal.h"

namespace spillway {
namespace {

using internal::SpillAccounting;
using internal::SpillFileState;

// What one Write appends: the batch, or a frame's header and its batch. Appended in turn
// (no copy of the batch into a frame buffer); the first failure stops the rest.
using Pieces = std::span<const std::string_view>;

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

}  // namespace

Status SpillWriter::Write(std::string_view data) {
  SpillFileState& state = SpillFile::Access::StateOf(file_);
  const bool framed = state.accounting->frame_spill_files();
  if (data.empty() && !framed) return OkStatus();  // No filesystem call, nothing to count.
  if (framed && data.size() > internal::kMaxSpillFrameBody) {
    return Status::InvalidArgument("a spill frame holds at most 4 GiB - 1 bytes");
  }
  // The header's checksum is computed before the lock: only the appends are serialized.
  internal::SpillFrameHeader header{};
  if (framed) header = internal::EncodeSpillFrameHeader(data);
  const std::array<std::string_view, 2> framed_pieces = {
      std::string_view(header.data(), header.size()), data};
  const Pieces pieces = framed ? Pieces(framed_pieces) : Pieces(&data, 1);
  std::lock_guard<std::mutex> lock(state.write_mu);
  const Quirks quirks = state.accounting->quirks();
  // With both quirks on, the older upstream path (54.1) wins: it has no pre-check at all.
  if (quirks.Has(Quirk::kNoRollback)) return WriteWithoutRollback(state, pieces);
  if (quirks.Has(Quirk::kWriteLeak)) return WriteLeaky(state, pieces);
  return WriteExact(state, pieces);
}

Status SpillWriter::Sync() { return SpillFile::Access::StateOf(file_).file->Sync(); }

}  // namespace spillway
