// What a fault rule does to the call it matches: the one list of actions, shared by
// FaultInjectingFileSystem and the rule engine of `spillway inject` (which says, in
// fault_rules.h, which operations each may name). Every consumer of a decision switches
// over it, so a new action does not build until each of them handles it.
//
// Dependency-free (the LD_PRELOAD shim includes it through the rule engine).
#ifndef SPILLWAY_VFS_FAULT_ACTION_H_
#define SPILLWAY_VFS_FAULT_ACTION_H_

#include <cstdint>
#include <string_view>

namespace spillway {

enum class FaultAction : uint8_t {
  // The call fails with the rule's errno and has no effect (a rule whose second word is
  // an errno name: `write ENOSPC`).
  kFail,
  // The calling process gets SIGKILL just before the call, which never happens: the OOM
  // killer, a preempted container, kill -9. Only that process dies. Once per rule.
  kKill,
  // The call succeeds and lies about the data: a read returns its bytes with one bit
  // flipped, a write stores the data with one bit flipped. The byte and bit come from the
  // run's seed (FaultDamagePoint). `read` and `write` only.
  kCorrupt,
  // A write reports full success and stores nothing: the range keeps what it had, and the
  // part past the old end reads back as zeros (the file still grows). `write` only.
  kLost,
  // The call goes through untouched: only for a rule with delay=, which waits first.
  kOk,
};

// The word of a rule that names the action ("kill"); "fail" for kFail, whose rules name
// an errno instead.
constexpr std::string_view FaultActionName(FaultAction action) {
  switch (action) {
    case FaultAction::kFail:
      return "fail";
    case FaultAction::kKill:
      return "kill";
    case FaultAction::kCorrupt:
      return "corrupt";
    case FaultAction::kLost:
      return "lost";
    case FaultAction::kOk:
      return "ok";
  }
  return {};
}

// How many actions there are: the values from 0 up to the first without a name.
inline constexpr int kFaultActionCount = [] {
  int n = 0;
  while (!FaultActionName(static_cast<FaultAction>(n)).empty()) ++n;
  return n;
}();

}  // namespace spillway

#endif  // SPILLWAY_VFS_FAULT_ACTION_H_
