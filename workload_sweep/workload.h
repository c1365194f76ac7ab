// Internal to the sweep (workload_sweep/): the workload a sweep runs, parsed and split into
// its setup and its acts. Not part of the sweep's interface (sweep.h).
#ifndef SPILLWAY_WORKLOAD_SWEEP_WORKLOAD_H_
#define SPILLWAY_WORKLOAD_SWEEP_WORKLOAD_H_

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "spillway/scenario/scenario.h"
#include "spillway/vfs/status.h"

namespace spillway::workload_sweep::internal {

// What the sweep does with each verb: a setting-up line runs before the fault line, an
// act is swept, and the other verbs may not appear in a workload. One overload per
// set-up or act verb, declared only (for decltype); any other verb is not swept.
struct SetupRole {};
struct ActRole {};
struct NotSwept {};
SetupRole RoleOf(const scenario::Dir&);
SetupRole RoleOf(const scenario::File&);
SetupRole RoleOf(const scenario::SetQuirk&);
ActRole RoleOf(const scenario::Plan&);
ActRole RoleOf(const scenario::Spill&);
ActRole RoleOf(const scenario::Write&);
ActRole RoleOf(const scenario::Read&);
ActRole RoleOf(const scenario::Clone&);
ActRole RoleOf(const scenario::Drop&);
ActRole RoleOf(const scenario::SetLimit&);
ActRole RoleOf(const scenario::ShortWrite&);
ActRole RoleOf(const scenario::Budget&);
ActRole RoleOf(const scenario::Crash&);
ActRole RoleOf(const scenario::Reap&);
template <typename V>
NotSwept RoleOf(const V&);

// True when verb V has role R.
template <typename V, typename R>
inline constexpr bool kHasRole = std::is_same_v<decltype(RoleOf(std::declval<const V&>())), R>;

// True when the command's verb has role R.
template <typename R>
bool HasRole(const scenario::Command& command) {
  return std::visit([](const auto& v) { return kHasRole<std::decay_t<decltype(v)>, R>; },
                    command.verb);
}

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

}  // namespace spillway::workload_sweep::internal

#endif  // SPILLWAY_WORKLOAD_SWEEP_WORKLOAD_H_
