// Private to the spill library: where a DiskManager puts a new file among its slots, and
// failover's avoiding of local dirs that failed. Not installed.
#ifndef SPILLWAY_SRC_SLOT_CHOOSER_H_
#define SPILLWAY_SRC_SLOT_CHOOSER_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "spillway/vfs/status.h"

namespace spillway::internal {

// The order in which a new file tries a DiskManager's slots (one per local dir, or the one
// temp dir): a slot chosen at random and, with failover, every other one after it in turn,
// those not avoided first. Failover avoids a slot whose file failed with an unhealthy
// errno (IsLocalDirUnhealthy) until a file is created in it.
//
// Thread safety: not thread-safe; the DiskManager calls it under its mutex.
class SlotChooser final {
 public:
  // `seed` fixes the random choices; `failover` says whether a file tries the other slots.
  SlotChooser(uint64_t seed, bool failover) : rng_(seed), failover_(failover) {}

  // Replaces the slots with one per flag of `avoided`, avoided where it is true.
  void SetSlots(std::vector<bool> avoided) { avoided_ = std::move(avoided); }
  // Adds a slot, not avoided.
  void AddSlot() { avoided_.push_back(false); }

  // The slots a new file tries, in order. REQUIRES: at least one slot.
  std::vector<size_t> SlotsToTry();

  // Failover: a slot whose file was created is no longer avoided; one that failed with an
  // unhealthy errno is avoided from now on.
  void MarkSlot(size_t slot, const Status& outcome);

 private:
  std::mt19937_64 rng_;
  const bool failover_;
  // The slots that later files try last, one per slot.
  std::vector<bool> avoided_;
};

// A local dir a failover spill could not use, and why.
struct LocalDirFailure {
  std::string local_dir;
  Status error;
};

// The error of a failover spill that no local dir could take: the first failure's code,
// errno, op and path, with a message that names every local dir tried and its errno.
// REQUIRES: !failures.empty().
Status AllLocalDirsFailed(const std::vector<LocalDirFailure>& failures);

}  // namespace spillway::internal

#endif  // SPILLWAY_SRC_SLOT_CHOOSER_H_
