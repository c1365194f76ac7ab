// The reference workload, and the loading of a workload for the sweep.
#include "workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "spillway/workload_sweep/sweep.h"

namespace spillway::workload_sweep {
namespace {

using internal::ActRole;
using internal::HasRole;
using internal::SetupRole;
using scenario::Command;

// The reference workload. In the run without a fault, plan b's second write and plan a's
// last write go over their limits, and b1's last write fills b exactly up to its limit
// (frame headers counted); under faults the sweep's model of the limits decides what each
// write must do. Every file is read back, so that damage a fault made is read.
constexpr std::string_view kReferenceWorkload = R"(# spillway sweep: the reference workload.
dir /local0
dir /local1
dir /local2
# /local3 does not exist: plan d's first spill creates it, as DataFusion does.
# Every plan frames its spill files (frame=on): each write appends a 20-byte frame header
# and its bytes, both counted, and each `read` checks every frame it reads back.
plan a /local0,/local1 limit=16K frame=on   # lazy, two local dirs; dropped before its files
plan idle /local0,/local1,/local2 frame=on  # lazy and never spills: no filesystem call at all
plan b /local1,/local2 limit=4K frame=on    # lazy, with a small limit
plan e /local2 mode=eager limit=64K frame=on  # eager: its directory is made when it is built
plan t os_tmp frame=on                      # the filesystem's temp dir
spill a1 a sort
write a1 1000
spill b1 b hash_join
write b1 3000
spill a2 a sort
clone a1c a1
write a2 2K
write a1c 500
write b1 2000                         # 5040 > 4K: LIMIT, nothing written or counted
spill e1 e aggregate
write e1 0                            # an empty batch: a frame header alone
write e1 700
read e1
spill t1 t
write t1 300
read t1
short_write a2 100
write a2 1000                         # stores the frame's header, then fails with EIO
read a2                               # the frame the failed write cut short: DATA_LOSS
drop a1                               # a1c still holds the file
spill b2 b
write b2 1000
read b2
drop b                                # a plan dropped before its files
write b1 36                           # fills b exactly up to its limit
read b1
plan d /local3,/local0 limit=1M frame=on
spill d1 d window
write d1 10K
set_limit a 8K
spill a3 a
write a3 4K
write a3 4K                           # over a's new limit: LIMIT
read a3
drop d
spill e2 e
write e2 1K
read e2
drop idle
write a1c 200
read a1c
drop a1c
drop a2
drop t1
drop e1
drop t                                # a plan dropped after its files
write d1 1
read d1
drop d1
drop a
drop e2
drop e
drop b2
drop b1
drop a3
budget x 6K                           # an executor-wide budget over plans f and g
plan f /local0,/local1 limit=5K budget=x layout=each failover=on frame=on
plan g /local2 budget=x frame=on
spill f1 f sort                       # layout=each: one spill directory, where f1 lands
write f1 3K
spill g1 g
write g1 2K
write g1 2K                           # 7K > x's 6K: LIMIT from the budget, nothing counted
spill f2 f                            # failover=on: a local dir that fails is skipped
write f2 964                          # fills x exactly
set_limit x 5K                        # lowered below what its plans hold (6K)
write g1 1                            # over x's new limit: LIMIT from the budget
drop x                                # f and g keep the budget alive
set_limit f 1K                        # below what f holds (4K)
write f2 1                            # over f's limit: LIMIT from the plan
read f1
read f2
drop f1
drop f2
drop f
write g1 1K
read g1
drop g1
drop g
plan c /local2,/local3 limit=64K frame=on  # the process that crashes
spill c1 c
write c1 2K
read c1
spill c2 c
crash                                 # kill -9: nothing removed; c's directories are orphans
plan n /local2 frame=on               # the next process
spill n1 n
write n1 100
reap /local2,/local3                  # c's directories go; n's stays: n holds its lock
write n1 100
read n1
drop n1
drop n
)";

// The words of the verbs with role R, in table order: "a, b{last_separator}c".
template <typename R>
std::string WordsOf(std::string_view last_separator) {
  std::vector<std::string_view> words;
  scenario::ForEachVerb([&](const auto& v) {
    if (internal::kHasRole<std::decay_t<decltype(v)>, R>) words.push_back(v.kWord);
  });
  const std::string_view last = words.back();
  words.pop_back();
  return fmt::format("{}{}{}", fmt::join(words, ", "), last_separator, last);
}

}  // namespace

std::string_view ReferenceWorkload() { return kReferenceWorkload; }

namespace internal {

StatusOr<Workload> LoadWorkload(std::string_view text) {
  auto parsed = scenario::Parse(text, "workload");
  if (const auto* error = std::get_if<scenario::ParseError>(&parsed)) {
    return Status::InvalidArgument(fmt::format("workload:{}: {}", error->line, error->message));
  }
  Workload workload;
  std::set<std::string> dirs;
  bool acting = false;
  for (const Command& command : std::get<scenario::Scenario>(parsed).commands) {
    if (HasRole<SetupRole>(command) && !acting) {
      workload.setup.push_back(command);
      continue;
    }
    if (!HasRole<ActRole>(command)) {
      return Status::InvalidArgument(fmt::format(
          "workload:{}: `{}` cannot be swept: a workload may hold only {} lines "
          "before its acts ({})",
          command.line, command.ToString(), WordsOf<SetupRole>(" and "), WordsOf<ActRole>(", ")));
    }
    acting = true;
    if (const auto* plan = std::get_if<scenario::Plan>(&command.verb)) {
      if (plan->spec.dirs_kind == scenario::DirsKind::kOsTmp) workload.uses_os_tmp = true;
      for (const std::string& dir : plan->spec.local_dirs) {
        if (dirs.insert(dir).second) workload.local_dirs.push_back(dir);
      }
    }
    workload.acts.push_back(command);
  }
  if (workload.acts.empty()) return Status::InvalidArgument("workload: it has no act");
  return workload;
}

}  // namespace internal
}  // namespace spillway::workload_sweep
