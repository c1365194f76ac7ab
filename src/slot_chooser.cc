// SlotChooser and the rest of failover: which slot a DiskManager's new file tries first,
// the order of the others, the local dirs it avoids, and the error when all of them fail.
#include "slot_chooser.h"

#include <fmt/format.h>

#include <cerrno>

#include "spillway/spill/disk_manager.h"

namespace spillway {

bool IsLocalDirUnhealthy(const Status& error) {
  return error.IsErrno(ENOSPC) || error.IsErrno(EDQUOT) || error.IsErrno(EIO) ||
         error.IsErrno(EROFS);
}

namespace internal {

std::vector<size_t> SlotChooser::SlotsToTry() {
  // Plain modulo rather than a distribution: mt19937_64's output is fixed by the
  // standard, so a seed picks the same directories with any standard library.
  const size_t n = avoided_.size();
  const size_t chosen = rng_() % n;
  if (!failover_) return std::vector<size_t>{chosen};
  std::vector<size_t> slots;
  slots.reserve(n);
  for (const bool avoided : {false, true}) {
    for (size_t i = 0; i < n; ++i) {
      const size_t slot = (chosen + i) % n;
      if (avoided_[slot] == avoided) slots.push_back(slot);
    }
  }
  return slots;
}

void SlotChooser::MarkSlot(size_t slot, const Status& outcome) {
  avoided_[slot] = !outcome.ok() && IsLocalDirUnhealthy(outcome);
}

Status AllLocalDirsFailed(const std::vector<LocalDirFailure>& failures) {
  std::string message = failures.front().error.message() + "; every local dir failed:";
  for (const LocalDirFailure& failure : failures) {
    const Status& error = failure.error;
    message += fmt::format(
        " {} ({}),", failure.local_dir,
        error.error_number() != 0 ? ErrnoName(error.error_number()) : StatusCodeName(error.code()));
  }
  message.pop_back();  // The last comma.
  return failures.front().error.WithMessage(message);
}

}  // namespace internal
}  // namespace spillway
