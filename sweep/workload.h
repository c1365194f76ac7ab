// Internal to the sweep (sweep/): the workload a sweep runs, parsed and split into
// its setup and its acts. Not part of the sweep's interface (sweep.h).
#ifndef SPILLWAY_SWEEP_WORKLOAD_H_
#define SPILLWAY_SWEEP_WORKLOAD_H_

#include <string>
#include <string_view>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/vfs/status.h"

namespace spillway::sweep::internal {

// The workload, parsed and split.
struct Workload {
  std::vector<scenario::Command> setup;  // dir, file, quirk: before the fault line.
  std::vector<scenario::Command> acts;   // Everything else, in order.
  // The directories spill directories are made in: every local dir of every plan.
  std::vector<std::string> local_dirs;
  bool uses_os_tmp = false;
};

// Parses `text` and splits it. Errors: kInvalidArgument (a parse error, a line other than
// dir, file and quirk before the acts or other than an act after them, or no act at all).
StatusOr<Workload> LoadWorkload(std::string_view text);

}  // namespace spillway::sweep::internal

#endif  // SPILLWAY_SWEEP_WORKLOAD_H_
