// SpillWriter: DataFusion's FileSpillWriter with exact accounting, and the two upstream
// versions of it that the kWriteLeak and kNoRollback quirks reproduce.
#include "spillway/spill/spill_writer.h"

#include "spill_internal.h"

namespace spillway {
namespace {

using internal::SpillAccounting;
using internal::SpillFileState;

// Correct: reserve, append, then keep exactly what reached the file. Whatever the outcome,
// used_disk_space and the file's size grow by the bytes now in the file and no more.
Status WriteExact(SpillFileState& state, std::string_view data) {
  SpillAccounting& accounting = *state.accounting;
  const uint64_t n = data.size();
  SPILLWAY_RETURN_IF_ERROR(accounting.Reserve(n));
  AppendResult appended = state.file->Append(data);
  // A short write stores some bytes and fails; give back only the part that is not there.
  accounting.Release(n - appended.bytes_written);
  state.size.fetch_add(appended.bytes_written);
  accounting.CountSpilled(appended.bytes_written);
  if (accounting.quirks().Has(Quirk::kWriteIgnoresErrors)) return OkStatus();  // `let _ =`.
  return appended.status;
}

// kWriteLeak (DataFusion #24228 case A, #24230): the reservation is kept when the append
// fails, and the file's size is not updated, so dropping the file gives back too little.
Status WriteLeaky(SpillFileState& state, std::string_view data) {
  const uint64_t n = data.size();
  SPILLWAY_RETURN_IF_ERROR(state.accounting->Reserve(n));
  AppendResult appended = state.file->Append(data);
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
Status WriteWithoutRollback(SpillFileState& state, std::string_view data) {
  AppendResult appended = state.file->Append(data);
  state.accounting->CountSpilled(appended.bytes_written);
  if (!appended.status.ok()) return appended.status;
  return internal::UpdateDiskUsageLocked(state);
}

}  // namespace

Status SpillWriter::Write(std::string_view data) {
  if (data.empty()) return OkStatus();  // No filesystem call, nothing to count.
  SpillFileState& state = SpillFile::Access::StateOf(file_);
  std::lock_guard<std::mutex> lock(state.write_mu);
  const Quirks quirks = state.accounting->quirks();
  // With both quirks on, the older upstream path (54.1) wins: it has no pre-check at all.
  if (quirks.Has(Quirk::kNoRollback)) return WriteWithoutRollback(state, data);
  if (quirks.Has(Quirk::kWriteLeak)) return WriteLeaky(state, data);
  return WriteExact(state, data);
}

Status SpillWriter::Sync() { return SpillFile::Access::StateOf(file_).file->Sync(); }

}  // namespace spillway
