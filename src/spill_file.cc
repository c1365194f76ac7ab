// SpillFile and its shared state: DataFusion's RefCountedTempFile, its Drop and
// update_disk_usage.
#include "spillway/spill/spill_file.h"

#include <cassert>
#include <utility>

#include "spill_internal.h"

namespace spillway {

SpillFile::State::State(std::shared_ptr<internal::SpillAccounting> accounting_in,
                        std::shared_ptr<internal::SpillDir> dir_in,
                        std::shared_ptr<internal::SpillDirSet> manager_dirs_in,
                        std::shared_ptr<FileSystem> fs_in, std::unique_ptr<WritableFile> file_in)
    : accounting(std::move(accounting_in)),
      dir(std::move(dir_in)),
      manager_dirs(std::move(manager_dirs_in)),
      fs(std::move(fs_in)),
      file(std::move(file_in)),
      path(file->path()) {}

// The last SpillFile copy is gone (RefCountedTempFile's Drop, plus NamedTempFile's
// removal). The order matters: the accounting first, so a reader never sees a removed
// file still counted; then close before unlink; the directories last, since this file
// may be the last thing keeping them alive.
SpillFile::State::~State() {
  accounting->Release(size.load());
  accounting->FileRemoved();
  file.reset();  // Closes the file; a close error has nothing left to lose.
  // Every failure is recorded, ENOENT included: an ENOENT may be a tmp cleaner's doing or
  // an injected fault, and the manager cannot tell which, so nothing is dropped silently.
  if (Status removed = fs->RemoveFile(path); !removed.ok()) {
    accounting->removal_log()->Record(removed);
  }
  dir.reset();
  manager_dirs.reset();  // If this was the last holder, every spill directory goes now.
}

namespace internal {

Status UpdateDiskUsageLocked(SpillFileState& state) {
  StatusOr<uint64_t> on_disk = state.file->Size();
  if (!on_disk.ok()) return on_disk.status();
  const uint64_t before = state.size.load();
  const uint64_t after = *on_disk;
  SpillAccounting& accounting = *state.accounting;

  const bool rollback = !accounting.quirks().Has(Quirk::kNoRollback);
  if (after < before) {
    // Never happens to an append-only file. Upstream subtracts the old size, adds the new
    // one and checks the limit as for any update; the fix rolls back on the error. With
    // the quirk, the new size is stored all the same: upstream keeps the old one, and its
    // drop would then give back more than is counted (a wrap-around spillway cannot hold).
    accounting.Release(before - after);
    Status within = accounting.Reserve(0);
    if (!within.ok() && rollback) {
      accounting.Add(before - after);  // The old size stays counted, as on the file.
      return within;
    }
    state.size.store(after);
    return within;
  }
  const uint64_t delta = after - before;
  if (!rollback) {
    // DataFusion 54.1's update_disk_usage: add (new - old) to the manager, then check, and
    // on the error return before the file's size is stored. The drop gives back only the
    // old size, so the manager stays `delta` too high for its whole life. A size that did
    // not change adds nothing and still fails while the manager is over its limit.
    SPILLWAY_RETURN_IF_ERROR(accounting.AddThenCheck(delta));
    state.size.store(after);
    return OkStatus();
  }
  // Reserve counts nothing when the bytes do not fit: that is the rollback. Reserve(0)
  // fails while the manager is over its limit (lowered below its usage), as upstream's
  // check of used > limit does whether or not the file grew.
  SPILLWAY_RETURN_IF_ERROR(accounting.Reserve(delta));
  state.size.store(after);
  return OkStatus();
}

}  // namespace internal

SpillFile::SpillFile(std::shared_ptr<State> state) : state_(std::move(state)) {
  assert(state_ != nullptr);
}

const std::string& SpillFile::path() const { return state_->path; }

uint64_t SpillFile::size() const { return state_->size.load(); }

Status SpillFile::UpdateDiskUsage() {
  std::lock_guard<std::mutex> lock(state_->write_mu);
  const uint64_t before = state_->size.load();
  Status updated = internal::UpdateDiskUsageLocked(*state_);
  // Bytes appended outside a SpillWriter count as spilled once they are accounted.
  const uint64_t after = state_->size.load();
  if (after > before) state_->accounting->CountSpilled(after - before);
  return updated;
}

long SpillFile::use_count() const { return state_.use_count(); }

}  // namespace spillway
